import Glibc
import Testing
@testable import WharfServer
import WharfSystem
import WharfTestSupport

/// The daemon's end of a bridge's control socket (``BridgeControl``), with the test speaking the
/// bridge's side over a socket pair: a real bridge is `wharf --connect`, which never misbehaves,
/// and the daemon takes no other program for a bridge outside a sandbox.
@Suite struct BridgeControlProtocol {
    /// A control listening on one end of a socket pair; the other end is the bridge's.
    private struct Rig {
        let control: BridgeControl
        let bridge: FileDescriptor
        let ended = OneShot<String>()

        init(openTimeoutSeconds: Double = 30) throws {
            let (daemonEnd, bridgeEnd) = try UnixSocket.pair()
            try daemonEnd.setNonBlocking()
            control = BridgeControl(socket: daemonEnd, logger: .silent, openTimeoutSeconds: openTimeoutSeconds)
            bridge = bridgeEnd
            let ended = ended
            control.start { reason in ended.set(reason) }
        }

        /// Starts an open on another thread (it waits for the bridge's answer), and reads the
        /// `O` PATH NUL it sends.
        func startOpen(_ path: FilePath) throws -> OneShot<Result<FileDescriptor, SystemError>> {
            let result = OneShot<Result<FileDescriptor, SystemError>>()
            let control = control
            startThread { result.set(Result { () throws(SystemError) in try control.openForReading(path) }) }
            let expected = [UInt8(ascii: "O")] + path.bytes + [0]
            var asked = [UInt8](repeating: 0, count: expected.count)
            _ = try asked.withUnsafeMutableBytes { try bridge.read(filling: $0) }
            #expect(asked == expected)
            return result
        }

        func endReason() -> String? { ended.wait(until: Deadline(secondsFromNow: 10)) }
    }

    /// The pipe's read end sees its end once every copy of the write end is closed: how a test
    /// tells that descriptors passed to the control were closed, not kept.
    private func isClosedEverywhere(_ readEnd: FileDescriptor) -> Bool {
        var byte: UInt8 = 0
        return eventually(seconds: 10) { withUnsafeMutableBytes(of: &byte) { (try? readEnd.read(into: $0)) == 0 } }
    }

    @Test func anOpenIsAnsweredWithItsDescriptorOrItsError() throws {
        let scratch = ScratchDirectory("wharf-bridge-control")
        let file = scratch.write("asked.txt", "the client's file")
        let rig = try Rig()
        let opened = try rig.startOpen(file)
        try rig.bridge.send([UInt8(ascii: "o")], passing: [try FileDescriptor.open(file, O_RDONLY)])
        let descriptor = try #require(try opened.wait(until: Deadline(secondsFromNow: 10))?.get())
        #expect(try String(decoding: descriptor.readToEnd(), as: UTF8.self) == "the client's file")

        let refused = try rig.startOpen(scratch.path("missing.txt"))
        try rig.bridge.write(all: Array("e\(ENOENT)\n".utf8))
        guard case .failure(let error)? = refused.wait(until: Deadline(secondsFromNow: 10)) else {
            Issue.record("the open did not fail")
            return
        }
        #expect(error.code == ENOENT)
        #expect(rig.ended.wait(until: Deadline(secondsFromNow: 0.2)) == nil, "the session goes on")
    }

    /// The answer to an open that timed out is not the next open's: the bridge answers in
    /// order, so the first answer after a timeout is the abandoned open's, and is thrown away
    /// (it had been taken for the next open's, which got the wrong file).
    @Test func aLateAnswerIsNotTakenForTheNextOpen() throws {
        let scratch = ScratchDirectory("wharf-bridge-control")
        let first = scratch.write("first.txt", "the first file")
        let second = scratch.write("second.txt", "the second file")
        let rig = try Rig(openTimeoutSeconds: 2)
        let timedOut = try rig.startOpen(first)
        guard case .failure(let error)? = timedOut.wait(until: Deadline(secondsFromNow: 10)) else {
            Issue.record("the open did not time out")
            return
        }
        #expect(error.code == ETIMEDOUT)
        let opened = try rig.startOpen(second)
        try rig.bridge.send([UInt8(ascii: "o")], passing: [try FileDescriptor.open(first, O_RDONLY)])
        #expect(opened.wait(until: Deadline(secondsFromNow: 0.2)) == nil, "the late answer was taken for the second open")
        try rig.bridge.send([UInt8(ascii: "o")], passing: [try FileDescriptor.open(second, O_RDONLY)])
        let descriptor = try #require(try opened.wait(until: Deadline(secondsFromNow: 10))?.get())
        #expect(try String(decoding: descriptor.readToEnd(), as: UTF8.self) == "the second file")
        #expect(rig.ended.wait(until: Deadline(secondsFromNow: 0.2)) == nil, "the session goes on")
    }

    /// Descriptors are taken only as the answer to an open, one per open: the reviewer's fake
    /// bridge sent `e1\n` with 32 descriptors, again and again, and the daemon kept every one
    /// (at its descriptor limit within 2 s). Now the first such message ends the session, and
    /// its descriptors are closed.
    @Test func descriptorsNoOpenAskedForEndTheSessionAndAreClosed() throws {
        let rig = try Rig()
        let (readEnd, writeEnd) = try FileDescriptor.pipe(nonBlocking: true)
        try rig.bridge.send(Array("e1\n".utf8), passing: Array(repeating: writeEnd, count: 32))
        writeEnd.close()
        let reason = try #require(rig.endReason(), "the session did not end")
        #expect(reason.contains("control protocol"), "\(reason)")
        #expect(isClosedEverywhere(readEnd), "the passed descriptors are still open")
    }

    /// An answer carries one descriptor: a second one with it ends the session, and neither is
    /// kept (the open fails).
    @Test func moreDescriptorsThanOpensEndTheSession() throws {
        let scratch = ScratchDirectory("wharf-bridge-control")
        let rig = try Rig()
        let opened = try rig.startOpen(scratch.write("asked.txt", "x"))
        let (readEnd, writeEnd) = try FileDescriptor.pipe(nonBlocking: true)
        try rig.bridge.send([UInt8(ascii: "o")], passing: [writeEnd, writeEnd])
        writeEnd.close()
        let reason = try #require(rig.endReason(), "the session did not end")
        #expect(reason.contains("control protocol"), "\(reason)")
        guard case .failure? = opened.wait(until: Deadline(secondsFromNow: 10)) else {
            Issue.record("the open was answered with a descriptor")
            return
        }
        #expect(isClosedEverywhere(readEnd), "the passed descriptors are still open")
    }

    /// An `e` that never ends is not kept: the reviewer's fake bridge sent `e` and megabytes
    /// without a newline, and the daemon kept them all (14 -> 181 MiB), searching them again at
    /// every read. Now the session ends once the message is longer than any answer.
    @Test func anAnswerWithoutItsEndEndsTheSession() throws {
        let scratch = ScratchDirectory("wharf-bridge-control")
        let rig = try Rig()
        let opened = try rig.startOpen(scratch.write("asked.txt", "x"))
        // 64 KiB: well within the socket's buffer, so this write does not wait for the daemon.
        try rig.bridge.write(all: [UInt8(ascii: "e")] + Array(repeating: UInt8(ascii: "9"), count: 64 * 1024))
        let reason = try #require(rig.endReason(), "the session did not end")
        #expect(reason.contains("without its end"), "\(reason)")
        guard case .failure(let error)? = opened.wait(until: Deadline(secondsFromNow: 10)) else {
            Issue.record("the open did not fail")
            return
        }
        #expect(error.code == EPIPE)
    }

    /// An answer when no open was asked, or a byte no message starts with, ends the session.
    @Test func anythingElseEndsTheSession() throws {
        for message in ["o", "e2\n", "x"] {
            let rig = try Rig()
            try rig.bridge.write(all: Array(message.utf8))
            let reason = try #require(rig.endReason(), "\(message): the session did not end")
            #expect(reason.contains("control protocol"), "\(message): \(reason)")
        }
    }
}
