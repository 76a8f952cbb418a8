import WharfSystem

/// MIME type names, each stored once and numbered in the order first seen.
///
/// The database's files name the same few hundred types thousands of times, and loading them
/// is on the path of a client's first request. So names are looked up by their bytes, straight
/// from the file being read: no String per line, and a cheap hash (FNV-1a) instead of the
/// seeded SipHash a Swift Dictionary needs. Names compare ASCII case-insensitively, as
/// shared-mime-info compares them, and are stored lowercased.
struct MIMENameTable: Sendable {
    /// The names by number, lowercased.
    private(set) var names: [String] = []
    /// Every name's lowercased bytes, back to back; name `i` ends at `ends[i]`.
    private var storage: [UInt8] = []
    private var ends: [Int] = []
    private var hashes: [UInt32] = []
    /// Open addressing with linear probing: a name's number, or -1. Never more than half full.
    private var slots: [Int32]

    init(capacity: Int = 512) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = Array(repeating: -1, count: size)
    }

    var count: Int { names.count }

    /// The number of `name`, adding it if it is new.
    mutating func intern(_ name: UnsafeBufferPointer<UInt8>) -> Int32 {
        let hash = Self.hash(name)
        if let existing = find(name, hash: hash) { return existing }
        let number = Int32(names.count)
        for byte in name { storage.append(lowercaseASCII(byte)) }
        ends.append(storage.count)
        hashes.append(hash)
        names.append(asciiLowercased(String(decoding: name, as: UTF8.self)))
        if names.count * 2 > slots.count { rehash(size: slots.count * 2) } else { insert(number, hash: hash) }
        return number
    }

    mutating func intern(_ name: String) -> Int32 {
        var name = name
        return name.withUTF8 { intern($0) }
    }

    /// The number of `name`, if it is known.
    func number(of name: UnsafeBufferPointer<UInt8>) -> Int32? {
        find(name, hash: Self.hash(name))
    }

    func number(of name: String) -> Int32? {
        var name = name
        return name.withUTF8 { number(of: $0) }
    }

    // MARK: Implementation

    private func find(_ name: UnsafeBufferPointer<UInt8>, hash: UInt32) -> Int32? {
        let mask = slots.count - 1
        var slot = Int(hash) & mask
        while true {
            let number = slots[slot]
            if number < 0 { return nil }
            if hashes[Int(number)] == hash && matches(Int(number), name) { return number }
            slot = (slot + 1) & mask
        }
    }

    private func matches(_ number: Int, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = number == 0 ? 0 : ends[number - 1]
        guard ends[number] - start == name.count else { return false }
        return storage.withUnsafeBufferPointer { stored in
            for offset in 0 ..< name.count where stored[start + offset] != lowercaseASCII(name[offset]) { return false }
            return true
        }
    }

    private mutating func insert(_ number: Int32, hash: UInt32) {
        let mask = slots.count - 1
        var slot = Int(hash) & mask
        while slots[slot] >= 0 { slot = (slot + 1) & mask }
        slots[slot] = number
    }

    private mutating func rehash(size: Int) {
        slots = Array(repeating: -1, count: size)
        for number in hashes.indices { insert(Int32(number), hash: hashes[number]) }
    }

    /// FNV-1a over the lowercased bytes.
    private static func hash(_ name: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in name { hash = (hash ^ UInt32(lowercaseASCII(byte))) &* 16_777_619 }
        return hash
    }
}
