import Foundation

/// Embeds `Examples/*.mscr` in the command line (`hcipico connect sim --technique …`), so that the binary
/// needs no files at run time and works from any directory.
struct ExampleScriptsGenerator: SpecGenerator {
    func generate(root: URL) throws -> [GeneratedFile] {
        let folder = root.appendingPathComponent("Examples")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".mscr") }
            .sorted()
        var body = "/// The MethodSCRIPT examples of `Examples/`, by file name.\n"
        body += "enum EmbeddedExamples {\n    static let scripts: [String: String] = [\n"
        for name in names {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .ascii)
            body += "        \(SwiftLiteral.quoted(name)): \(SwiftLiteral.quoted(text)),\n"
        }
        body += "    ]\n}\n"
        return [
            GeneratedFile(
                path: "Sources/hcipico/Generated/ExampleScripts+Generated.swift",
                specs: names.map { "Examples/\($0)" },
                body: body
            )
        ]
    }
}
