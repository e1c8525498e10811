import NIOCore
import RigJournal

/// A batch as the COPY text of `hcipico.packages` and `hcipico.package_values`, in chunks of about
/// 256 KB so that a large batch streams instead of being built whole.
struct ForwardRows: Sendable {
    static let packageColumns = ["rig", "run_uuid", "idx", "loop", "scan", "host_time", "device_time"]
    static let valueColumns = [
        "rig", "run_uuid", "idx", "position", "variable", "name", "value", "status", "current_range", "noise",
    ]
    static let chunkBytes = 256 * 1024

    let rig: String
    let batch: ForwardBatch

    func packageChunks() -> [ByteBuffer] {
        var encoder = CopyTextEncoder()
        var chunks: [ByteBuffer] = []
        let uuids = batch.runs.map { $0.uuid.lowercased() }
        for package in batch.packages {
            encoder.text(rig)
            encoder.text(uuids[package.run])
            encoder.integer(package.index)
            encoder.integer(package.loop)
            encoder.integer(package.scan)
            encoder.timestamp(package.hostTime)
            encoder.double(package.deviceTime)
            encoder.endRow()
            if encoder.buffer.readableBytes >= Self.chunkBytes { chunks.append(encoder.take()) }
        }
        if encoder.buffer.readableBytes > 0 { chunks.append(encoder.take()) }
        return chunks
    }

    func valueChunks() -> [ByteBuffer] {
        var encoder = CopyTextEncoder()
        var chunks: [ByteBuffer] = []
        let uuids = batch.runs.map { $0.uuid.lowercased() }
        for value in batch.values {
            encoder.text(rig)
            encoder.text(uuids[value.run])
            encoder.integer(value.index)
            encoder.integer(value.position)
            encoder.text(value.variable)
            encoder.text(value.name)
            encoder.double(value.value)
            encoder.integer(value.status)
            encoder.integer(value.range)
            encoder.integer(value.noise)
            encoder.endRow()
            if encoder.buffer.readableBytes >= Self.chunkBytes { chunks.append(encoder.take()) }
        }
        if encoder.buffer.readableBytes > 0 { chunks.append(encoder.take()) }
        return chunks
    }
}
