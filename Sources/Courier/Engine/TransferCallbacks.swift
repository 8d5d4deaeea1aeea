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
            let plan = transfer.sink?.transfer(transfer, didReceive: head) ?? .discard
            do throws(HTTPRequestError) {
                try transfer.adopt(plan)
            } catch {
                // Returning less than the length makes libcurl stop with CURLE_WRITE_ERROR.
                transfer.engineFailure = error
                return 0
            }
        }
        return length
    }

    /// `CURLOPT_WRITEFUNCTION`: a piece of the response body, to memory, a file or the request.
    static let write: ccurl_data_cb = { buffer, size, count, userData in
        let length = size * count
        guard let buffer, let userData else { return length }
        let transfer = Unmanaged<Transfer>.fromOpaque(userData).takeUnretainedValue()
        transfer.noteActivity()
        let chunk = UnsafeRawBufferPointer(start: buffer, count: length)
        switch transfer.bodyPlan {
        case .memory:
            transfer.receivedBody.append(chunk.bindMemory(to: UInt8.self))
        case .discard:
            break
        case .file:
            do throws(HTTPRequestError) {
                try transfer.fileWriter?.write(chunk)
            } catch {
                transfer.engineFailure = error
                return 0
            }
        case .stream:
            guard transfer.sink?.transfer(transfer, offer: chunk) ?? true else {
                // libcurl keeps the chunk and delivers it again after curl_easy_pause(CONT).
                transfer.isPausedForConsumer = true
                return Int(CURL_WRITEFUNC_PAUSE)
            }
        }
        transfer.bytesReceived += Int64(length)
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
