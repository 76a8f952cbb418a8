import Testing
import WharfSystem

/// Log lines held while a dialog owns the terminal they go to: kept in order, bounded, and
/// written when released.
@Suite(.serialized) struct LoggerTests {
    @Test func heldLinesWaitThenGoOutInOrderWithTheDroppedOnesCounted() throws {
        let (readEnd, writeEnd) = try FileDescriptor.pipe(nonBlocking: true)
        writeEnd.growPipeBuffer(to: 1 << 20)
        let logger = Logger(level: .info, descriptor: writeEnd.raw)
        let other = try FileDescriptor.pipe(nonBlocking: true)
        let bystander = Logger(level: .info, descriptor: other.1.raw)
        Logger.holdLines(writtenTo: writeEnd.raw)
        for index in 0..<(Logger.heldLineLimit + 5) { logger.info("line \(index)") }
        bystander.info("not held")
        #expect(Self.text(readEnd).isEmpty, "nothing is written while lines are held")
        #expect(Self.text(other.0).hasSuffix("info: not held\n"), "lines to other descriptors are not held")
        Logger.releaseLines()
        let lines = Self.text(readEnd).split(separator: "\n")
        #expect(lines.count == Logger.heldLineLimit + 1)
        #expect(lines.first?.hasSuffix("info: line 0") == true)
        #expect(lines[Logger.heldLineLimit - 1].hasSuffix("info: line \(Logger.heldLineLimit - 1)"))
        #expect(lines.last?.hasSuffix("warning: 5 more log line(s) dropped while a dialog was on this terminal") == true)
        logger.info("after")
        #expect(Self.text(readEnd).hasSuffix("info: after\n"), "released, lines go out at once")
    }

    static func text(_ descriptor: FileDescriptor) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { (try? descriptor.read(into: $0)) ?? 0 }
            if count <= 0 { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
