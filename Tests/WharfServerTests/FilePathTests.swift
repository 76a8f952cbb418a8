import Testing
import WharfSystem

@Suite struct FilePathNormalization {
    @Test(arguments: [
        ("/", "/"), ("//", "/"), ("/a/b", "/a/b"), ("/a//b/", "/a/b"), ("/a/./b", "/a/b"),
        ("/a/b/..", "/a"), ("/a/b/../../..", "/"), ("/../x", "/x"), ("/a/.../b", "/a/.../b"),
        ("/a/..b/c", "/a/..b/c"), ("/café/ü/../é", "/café/é"),
    ])
    func dotsAndSlashesFoldLexically(path: String, expected: String) {
        #expect(FilePath.normalize(path) == expected)
    }

    @Test func relativePathsStartAtTheWorkingDirectory() {
        #expect(FilePath.normalize("x/../y") == FilePath.normalize(FilePath.currentDirectory() + "/y"))
    }
}
