import Foundation
import Hummingbird
import NIOCore
import RigJournal

/// A run's file for the page's download links, written from the journal by the same code as
/// `hcipico export` (into a private temporary folder, removed at once) and sent as an attachment.
enum RunDownload {
    static func response(run id: Int64, suffix: String, journal: Journal) throws -> Response {
        guard let run = try journal.runs(RunFilter(ids: [id])).first else {
            return StatusServer.text("no run \(id)\n", status: .notFound)
        }
        if run.prunedAt != nil {
            return StatusServer.text(
                "run \(id)'s packages were pruned from the journal after forwarding; they are in PostgreSQL\n",
                status: .gone
            )
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hcipico-download-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(
            at: folder,
            withIntermediateDirectories: false,
            attributes: [.posixPermissions: 0o700]
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        let name = RunExport.name(of: run)
        try RunExport.write(run, from: journal, base: folder.appendingPathComponent(name).path, overwrite: false)
        let data = try Data(contentsOf: folder.appendingPathComponent(name + suffix))
        let type =
            switch suffix {
            case ".svg": "image/svg+xml"
            case ".jsonl": "application/jsonl"
            case ".results.json": "application/json"
            case ".pstrace.csv": "text/csv; charset=utf-16"
            default: "text/csv; charset=utf-8"
            }
        return Response(
            status: .ok,
            headers: [.contentType: type, .contentDisposition: "attachment; filename=\"\(name)\(suffix)\""],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
