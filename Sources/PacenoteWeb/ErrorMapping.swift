import PacenoteOperations
import PacenoteStore

extension APIError {
    /// The one mapping from whatever a handler throws to its HTTP answer: an `APIError` as
    /// it is, an operation's refusal as 400 (or 404 when what it names does not exist), the
    /// database's errors as 503, anything else as 500.
    public init(_ error: any Error) {
        switch error {
        case let error as APIError:
            self = error
        case let error as OperationError:
            let kind: APIError.Kind = switch error.kind {
            case .notFound: .notFound
            case .conflict: .conflict
            case .invalid: .badRequest
            }
            self.init(kind: kind, code: error.code, message: error.message)
        case let error as StoreError:
            if case .refused = error, let refusal = OperationError.from(error) as? OperationError {
                self.init(refusal)
            } else {
                self = .unavailable(error.description)
            }
        default:
            self = .internal(String(describing: error))
        }
    }
}
