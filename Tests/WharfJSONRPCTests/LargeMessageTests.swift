import Glibc
import Testing
import WharfJSON
import WharfJSONRPC
import WharfSystem
import WharfServerTestSupport
import WharfTestSupport

/// A `Connection` reading messages of several MiB from a real pipe (an exporter's base64
/// document arrives this way): read whole, byte for byte, through a pipe it has widened.
@Suite struct LargeMessages {
    /// A connection whose one method, `measure`, answers with the length of its `text` param
    /// and a checksum of its bytes.
    final class MeasuringServer: Sendable {
        let client: WireClient
        let connection: Connection
        /// The write end of the connection's input, as the client sees it.
        let input: Int32

        init() {
            let toServer = try! makePipe(), fromServer = try! makePipe()
            input = toServer.write
            connection = Connection(input: FileDescriptor(taking: toServer.read), output: FileDescriptor(taking: fromServer.write))
            client = WireClient(writingTo: toServer.write, readingFrom: fromServer.read)
            connection.start(Connection.Handler(
                request: { request, reply in
                    guard var text = request.params?["text"]?.stringValue else {
                        reply.fail(.invalidParams("text"))
                        return
                    }
                    let sum = text.withUTF8 { checksum($0) }
                    reply.succeed(["count": .int(Int64(text.utf8.count)), "checksum": .int(sum)])
                },
                notification: { _ in }
            ), onEnd: { [connection] _ in connection.closeOutput() })
        }
    }

    /// `F_GETPIPE_SZ` (not in Swift's Glibc module).
    static let getPipeSize: Int32 = 1032

    @Test func aMessageOfSeveralMiBIsReadWholeAndExact() throws {
        let server = MeasuringServer()
        // 5 MiB of varied ASCII: longer than a read (256 KiB) and than the pipe (1 MiB).
        let characters = [UInt8](unsafeUninitializedCapacity: 5 << 20) { buffer, initialized in
            for index in buffer.indices { buffer[index] = UInt8(0x21 + (index &* 7 &+ index >> 12) % 90) }
            initialized = buffer.count
        }
        let text = String(decoding: characters, as: UTF8.self)
        let id = server.client.sendRequest("measure", ["text": .string(text)])
        let response = try #require(server.client.response(to: id, timeout: 30))
        #expect(response["result"]?["count"] == JSON.int(Int64(characters.count)))
        #expect(response["result"]?["checksum"] == JSON.int(characters.withUnsafeBufferPointer { checksum($0) }))
    }

    @Test func aPipeInputIsWidenedToOneMiB() throws {
        let server = MeasuringServer()
        // Once the first answer is out, the read loop has started and set the pipe up.
        let id = server.client.sendRequest("measure", ["text": "x"])
        #expect(server.client.response(to: id)?["result"]?["count"] == 1)
        #expect(fcntl(server.input, Self.getPipeSize) == 1 << 20)
    }
}

/// A position-dependent sum: catches missing, extra and reordered bytes. Over a buffer, not a
/// generic sequence: this test is built unoptimised, and 5 MiB through a generic iterator took
/// seconds.
private func checksum(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64 {
    var sum: Int64 = 0
    for index in bytes.indices { sum = sum &* 31 &+ Int64(bytes[index]) &+ Int64(index & 0xFF) }
    return sum
}
