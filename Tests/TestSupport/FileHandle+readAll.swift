import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension FileHandle {
    /// Everything left to read, to end of file. Foundation's `readAll()` traps
    /// when a read is interrupted by a signal (EINTR), which a test process that runs
    /// children and servers can receive at any time; this read starts again instead.
    public func readAll() -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[..<count])
            } else if count == 0 || errno != EINTR {
                return data
            }
        }
    }
}
