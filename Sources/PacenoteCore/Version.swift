/// Pacenote's version, shown by `pacenote --version` and in `/api/v1/status`.
public enum PacenoteVersion {
    public static let current = "0.1.0"
}
