import Testing
@testable import WharfContentTypes

/// What counts as a MIME type where a client declares one or a dynamic identifier carries one:
/// `type/subtype`, each part non-empty, no space, control character, DEL or parameter.
@Suite struct MIMETypeSyntaxTests {
    @Test(arguments: ["text/plain", "application/vnd.ms-excel", "x/y", "text/x-c++src", "application/x-ñ"])
    func accepted(mime: String) {
        #expect(isValidMIMEType(mime))
    }

    @Test(arguments: ["", "text", "/plain", "text/", "/", "text/plain/x", "text//plain", "text/pl ain",
                      "text/plain;charset=utf-8", "text/\u{7F}", "text/\t", " text/plain"])
    func refused(mime: String) {
        #expect(!isValidMIMEType(mime))
    }
}
