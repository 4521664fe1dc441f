import Foundation

/// A time setting that is not a number of seconds the setting accepts (negative, NaN, infinite,
/// 0 where 0 would mean nothing, too large), refused where it is given: `HostResolver.init`,
/// `HTTPClient.init`, `HostResolver.resolveBlocking(host:port:families:timeout:)`. Nothing was
/// looked up or sent.
public struct InvalidDurationError: LocalizedError, Sendable, Hashable, CustomStringConvertible {
    /// The numbers of seconds a setting accepts.
    public enum Requirement: Sendable, Hashable, CustomStringConvertible {
        /// Finite and above 0.
        case positive
        /// Finite, above 0 and at most this many seconds.
        case positiveAtMost(Double)
        /// Finite, 0 or more.
        case nonNegative
        /// Finite, 0 or more and at most this many seconds (a lower bound beside its upper one).
        case nonNegativeAtMost(Double)
        /// 0 or more, `.infinity` included (no limit).
        case nonNegativeOrInfinity
        /// Any finite number of seconds, negative included (a clock correction).
        case finite

        /// Whether `seconds` meets the requirement (NaN never does).
        public func accepts(_ seconds: Double) -> Bool {
            switch self {
            case .positive: seconds.isFinite && seconds > 0
            case .positiveAtMost(let maximum): seconds.isFinite && seconds > 0 && seconds <= maximum
            case .nonNegative: seconds.isFinite && seconds >= 0
            case .nonNegativeAtMost(let maximum): seconds.isFinite && seconds >= 0 && seconds <= maximum
            case .nonNegativeOrInfinity: seconds >= 0
            case .finite: seconds.isFinite
            }
        }

        /// `a number of seconds above 0`, and so on, for the message.
        public var description: String {
            switch self {
            case .positive: "a finite number of seconds above 0"
            case .positiveAtMost(let maximum): "a number of seconds above 0 and at most \(maximum)"
            case .nonNegative: "a finite number of seconds, 0 or more"
            case .nonNegativeAtMost(let maximum): "a number of seconds from 0 to \(maximum)"
            case .nonNegativeOrInfinity: "a number of seconds, 0 or more (.infinity: no limit)"
            case .finite: "a finite number of seconds (negative allowed)"
            }
        }
    }

    /// The setting, as code names it: `HostResolver.Configuration.requestTimeout`,
    /// `resolveBlocking(timeout:)`.
    public var setting: String
    /// The value given, in seconds.
    public var value: Double
    /// What the setting accepts.
    public var requirement: Requirement

    public init(setting: String, value: Double, requirement: Requirement) {
        self.setting = setting
        self.value = value
        self.requirement = requirement
    }

    public var description: String { "\(setting) needs \(requirement), not \(value)" }

    /// The same text as `description`, for callers that show `localizedDescription`.
    public var errorDescription: String? { description }

    /// - Throws: `InvalidDurationError` for `setting` when `seconds` does not meet `requirement`.
    public static func check(_ seconds: Double, _ requirement: Requirement, setting: String) throws(InvalidDurationError) {
        guard requirement.accepts(seconds) else { throw InvalidDurationError(setting: setting, value: seconds, requirement: requirement) }
    }

    /// As `check(_:_:setting:)`; nil (the setting off, or no limit) always passes.
    public static func check(_ seconds: Double?, _ requirement: Requirement, setting: String) throws(InvalidDurationError) {
        guard let seconds else { return }
        try check(seconds, requirement, setting: setting)
    }
}
