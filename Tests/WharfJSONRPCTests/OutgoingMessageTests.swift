import Testing
import WharfJSON
@testable import WharfJSONRPC

/// The envelope is written as bytes around the encoded values (no `JSONObject` per message):
/// each shape, exactly, in the specification's member order.
@Suite struct OutgoingMessageText {
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func responsesCarryTheIdThenTheResultOrTheError() {
        #expect(text(OutgoingMessage.response(id: .int(7), result: ["ok": true]))
            == #"{"jsonrpc":"2.0","id":7,"result":{"ok":true}}"#)
        #expect(text(OutgoingMessage.response(id: .string("a\"b"), result: nil))
            == #"{"jsonrpc":"2.0","id":"a\"b","result":null}"#)
        #expect(text(OutgoingMessage.response(id: .null, error: .invalidRequest("no")))
            == #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no"}}"#)
    }

    @Test func requestsAndNotificationsHaveParamsOnlyWhenGiven() {
        #expect(text(OutgoingMessage.request(id: .int(1), method: "presenter/show", params: ["dialogId": "d1"]))
            == #"{"jsonrpc":"2.0","id":1,"method":"presenter/show","params":{"dialogId":"d1"}}"#)
        #expect(text(OutgoingMessage.request(id: .int(2), method: "m", params: nil))
            == #"{"jsonrpc":"2.0","id":2,"method":"m"}"#)
        #expect(text(OutgoingMessage.notification(method: "dialog/cancelled", params: ["reason": "user"]))
            == #"{"jsonrpc":"2.0","method":"dialog/cancelled","params":{"reason":"user"}}"#)
        #expect(text(OutgoingMessage.notification(method: "exit", params: nil)) == #"{"jsonrpc":"2.0","method":"exit"}"#)
    }

    @Test func aBatchIsTheResponsesInOneArray() {
        let one = OutgoingMessage.response(id: .int(1), result: 1)
        let two = OutgoingMessage.response(id: .int(2), result: 2)
        #expect(text(OutgoingMessage.batch([one, two]))
            == #"[{"jsonrpc":"2.0","id":1,"result":1},{"jsonrpc":"2.0","id":2,"result":2}]"#)
    }
}
