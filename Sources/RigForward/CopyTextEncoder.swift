import NIOCore

/// Rows in PostgreSQL's COPY text format, written straight into a `ByteBuffer`: columns separated by
/// a tab, rows ended by a newline, `\N` for NULL, and backslash, tab, newline and carriage return in
/// text escaped. Numbers are written as Swift prints them (shortest text that reads back exactly), which
/// PostgreSQL's `float8` input reads back to the same double.
struct CopyTextEncoder {
    private(set) var buffer: ByteBuffer

    init(capacity: Int = 1 << 16) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    /// Starts a column (a tab before every column but a row's first).
    private var atRowStart = true

    mutating func text(_ value: String?) {
        separate()
        guard let value else { return null() }
        var plain = true
        for byte in value.utf8 where byte == 0x5C || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            plain = false
            break
        }
        if plain {
            buffer.writeString(value)
            return
        }
        for byte in value.utf8 {
            switch byte {
            case 0x5C: buffer.writeStaticString("\\\\")
            case 0x09: buffer.writeStaticString("\\t")
            case 0x0A: buffer.writeStaticString("\\n")
            case 0x0D: buffer.writeStaticString("\\r")
            default: buffer.writeInteger(byte)
            }
        }
    }

    mutating func integer(_ value: Int?) {
        separate()
        guard let value else { return null() }
        buffer.writeString(String(value))
    }

    /// A double; nil and NaN (the device's "no value") are NULL, infinities PostgreSQL's own words.
    mutating func double(_ value: Double?) {
        separate()
        guard let value, !value.isNaN else { return null() }
        if value.isInfinite {
            buffer.writeStaticString(value > 0 ? "Infinity" : "-Infinity")
        } else {
            buffer.writeString(value.description)
        }
    }

    /// A `timestamptz` from seconds since the Unix epoch, in UTC to the microsecond.
    mutating func timestamp(_ seconds: Double) {
        separate()
        TimestampText.write(seconds, into: &buffer)
    }

    mutating func endRow() {
        buffer.writeInteger(UInt8(ascii: "\n"))
        atRowStart = true
    }

    private mutating func null() { buffer.writeStaticString("\\N") }

    private mutating func separate() {
        if atRowStart {
            atRowStart = false
        } else {
            buffer.writeInteger(UInt8(ascii: "\t"))
        }
    }

    /// Hands the rows over and starts an empty buffer.
    mutating func take() -> ByteBuffer {
        defer { buffer = ByteBufferAllocator().buffer(capacity: buffer.capacity) }
        return buffer
    }
}
