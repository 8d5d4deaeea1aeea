import CCurl
import Foundation

/// libcurl's C callbacks for a `Transfer`. Each recovers the transfer from its user-data pointer
/// (an `Unmanaged` reference the engine retains while the handle is in the multi handle), records
/// what happened and returns at once. None calls back into libcurl or runs user code.
enum TransferCallbacks {
    /// `CURLOPT_HEADERFUNCTION`: one header line at a time.
    static let header: ccurl_data_cb = { buffer, size, count, userData in
        let length = size * count
        guard let buffer, let userData else { return length }
        let transfer = Unmanaged<Transfer>.fromOpaque(userData).takeUnretainedValue()
        transfer.noteActivity()
        let line = UnsafeRawBufferPointer(start: buffer, count: length)
        if let head = transfer.headParser.consume(line) {
            transfer.head = head
            transfer.sink?.transfer(transfer, didReceive: head)
        }
        return length
    }

    /// `CURLOPT_WRITEFUNCTION`: a piece of the response body.
    static let write: ccurl_data_cb = { buffer, size, count, userData in
        let length = size * count
        guard let buffer, let userData else { return length }
        let transfer = Unmanaged<Transfer>.fromOpaque(userData).takeUnretainedValue()
        transfer.noteActivity()
        transfer.bytesReceived += Int64(length)
        switch transfer.configuration.bodyDisposition {
        case .memory:
            transfer.receivedBody.append(
                UnsafeRawBufferPointer(start: buffer, count: length).bindMemory(to: UInt8.self))
        case .discard:
            break
        }
        transfer.reportProgressIfDue()
        return length
    }

    /// `CURLOPT_READFUNCTION`: fill libcurl's buffer with the next part of the request body.
    static let read: ccurl_data_cb = { buffer, size, count, userData in
        guard let buffer, let userData else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(userData).takeUnretainedValue()
        transfer.noteActivity()
        guard let body = transfer.configuration.body else { return 0 }
        let wanted = size * count
        let available = body.count - transfer.uploadOffset
        let length = min(wanted, available)
        guard length > 0 else { return 0 }
        body.withUnsafeBytes { bytes in
            let start = bytes.baseAddress!.advanced(by: transfer.uploadOffset)
            UnsafeMutableRawPointer(buffer).copyMemory(from: start, byteCount: length)
        }
        transfer.uploadOffset += length
        transfer.reportProgressIfDue()
        return length
    }

    /// `CURLOPT_SEEKFUNCTION`: rewind the body when libcurl must send it again.
    static let seek: ccurl_seek_cb = { userData, offset, origin in
        guard let userData else { return Int32(CURL_SEEKFUNC_FAIL) }
        let transfer = Unmanaged<Transfer>.fromOpaque(userData).takeUnretainedValue()
        guard origin == SEEK_SET, let body = transfer.configuration.body, offset >= 0, Int(offset) <= body.count
        else { return Int32(CURL_SEEKFUNC_CANTSEEK) }
        transfer.uploadOffset = Int(offset)
        return Int32(CURL_SEEKFUNC_OK)
    }
}
