import Foundation

// `swift run SpecGen [PACKAGE_ROOT]`: regenerates every `Sources/*/Generated/*.swift` file from `Specs/`.
// A generated file that no generator produces any more is removed, so the folders hold exactly the output.

let generators: [any SpecGenerator] = [
    BLEWireGenerator(),
    MethodSCRIPTGenerator(),
    MethodGenerator(),
    PicoSimulatorGenerator(),
]

let root = URL(fileURLWithPath: CommandLine.arguments.dropFirst().first ?? FileManager.default.currentDirectoryPath)
do {
    var written = Set<String>()
    for generator in generators {
        for file in try generator.generate(root: root) {
            precondition(file.path.contains("/Generated/"), "generated code belongs under Sources/*/Generated/")
            let url = root.appendingPathComponent(file.path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            let contents = Data(file.contents.utf8)
            if (try? Data(contentsOf: url)) != contents { try contents.write(to: url) }
            written.insert(file.path)
        }
    }
    let sources = root.appendingPathComponent("Sources")
    for module in (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? [] {
        let folder = "Sources/\(module)/Generated"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path))
            ?? []
        where name.hasSuffix(".swift") && !written.contains("\(folder)/\(name)") {
            try FileManager.default.removeItem(at: root.appendingPathComponent("\(folder)/\(name)"))
        }
    }
    if try ReadmeTechniqueTable().write(root: root) { print("SpecGen: README.md's technique table rewritten") }
    print("SpecGen: \(written.count) files up to date")
} catch {
    FileHandle.standardError.write(Data("SpecGen: \(error)\n".utf8))
    exit(1)
}
