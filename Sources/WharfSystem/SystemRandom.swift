import Glibc

/// Bytes from the kernel's random source, for secrets that must not be guessed (bookmark tokens,
/// access ids, store instance ids).
public enum SystemRandom {
    /// `getentropy(3)`, glibc's wrapper of `getrandom(2)` without flags (Swift's Glibc module does
    /// not import `<sys/random.h>`): blocks only until the pool is initialised at boot, never
    /// returns short, and takes at most 256 bytes per call, so larger requests are made in chunks.
    public static func bytes(_ count: Int) throws(SystemError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let chunk = min(256, count - filled)
            let status = buffer.withUnsafeMutableBytes { raw in
                getentropy(raw.baseAddress! + filled, chunk)
            }
            guard status == 0 else { throw .current("getentropy") }
            filled += chunk
        }
        return buffer
    }
}
