// One request subclass per endpoint, as ASIHTTPRequest users wrote them, and a delegate that
// supplies credentials when the server asks (a 401), with the session store reusing them.
//
// Runs offline against Courier's test server on 127.0.0.1.
import Courier
import CourierTestServer

/// GET /account: parses its own response.
final class AccountRequest: HTTPRequest, @unchecked Sendable {
    var greeting: String? { responseString() }
}

/// Answers the server's question with what a user would type into a login form.
final class Login: HTTPRequestAuthenticationDelegate {
    private(set) var asked = 0

    func authenticationNeeded(for request: HTTPRequest) {
        asked += 1
        print("the server asks for credentials (realm \(request.authenticationRealm ?? "none"))")
        request.username = "ada"
        request.password = "analytical"
        request.retryUsingSuppliedCredentials()
    }

    func proxyAuthenticationNeeded(for request: HTTPRequest) {
        request.cancelAuthentication()
    }
}

let server = try TestServer()
defer { server.stop() }
let account = server.url(.basicAuth(user: "ada", password: "analytical"))

let login = Login()
let first = AccountRequest(url: account)
first.delegate = login
first.setCompletionBlock { request in
    print("first:  \(request.greeting ?? "")")
}
first.setFailedBlock { request in print("first failed: \(request.error!)") }
first.startAsynchronous()
let queue = HTTPRequest.sharedQueue
queue.waitUntilAllOperationsAreFinished()  // runs the main queue meanwhile

// The session store sends the credentials that worked before the server asks again.
let second = AccountRequest(url: account)
second.startSynchronous()
print("second: \(second.greeting ?? "") (retries: \(second.authenticationRetryCount), asked: \(login.asked))")
exit(first.error == nil && second.error == nil && login.asked == 1 ? 0 : 1)
