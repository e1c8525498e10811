import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// Every request must carry the read token or the control token (see `TokenMatcher`); anything else
/// gets 401 with an empty body and a Basic challenge, so that a browser asks for it.
struct TokenCheck<Context: RequestContext>: RouterMiddleware {
    let matchers: [TokenMatcher]

    init(tokens: [String]) { matchers = tokens.map(TokenMatcher.init(token:)) }

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.authorization], matchers.contains(where: { $0.accepts(header) }) else {
            return Response(status: .unauthorized, headers: [.wwwAuthenticate: "Basic realm=\"hcipico\""])
        }
        return try await next(request, context)
    }
}

/// An `Authorization` header that carries the token: `Bearer TOKEN`, or HTTP Basic with any user and
/// the token as password (what a browser sends, with the page's event stream too). Compared by
/// SHA-256 digest in constant time, so the comparison says nothing of how much of a guess was right.
struct TokenMatcher: Sendable {
    private let digest: [UInt8]

    init(token: String) { digest = Array(SHA256.hash(data: Data(token.utf8))) }

    func accepts(_ header: String) -> Bool {
        let offered: String
        if header.hasPrefix("Bearer ") {
            offered = String(header.dropFirst("Bearer ".count))
        } else if header.hasPrefix("Basic "),
            let data = Data(base64Encoded: String(header.dropFirst("Basic ".count))),
            let pair = String(data: data, encoding: .utf8), let colon = pair.firstIndex(of: ":")
        {
            offered = String(pair[pair.index(after: colon)...])
        } else {
            return false
        }
        let candidate = Array(SHA256.hash(data: Data(offered.utf8)))
        return zip(candidate, digest).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
