import Foundation

/// Where the package and its build products are, seen from a running test.
public enum PackagePaths {
    /// The package root (the directory of `Package.swift`), found from this file's compile-time path.
    public static var root: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent() // Tests/TestSupport
            .deletingLastPathComponent() // Tests
            .deletingLastPathComponent()
    }

    /// `scripts/` under the package root.
    public static var scripts: URL { root.appendingPathComponent("scripts", isDirectory: true) }

    /// The built executable product `name` (e.g. `httpdns`) of the build that produced the running
    /// test binary: SwiftPM puts products and the test bundle side by side in one directory
    /// (`<scratch>/<triple>/debug/`), whatever `--scratch-path` was.
    ///
    /// - Returns: The first existing candidate next to the running executable or the main bundle;
    ///   when none exists, the path next to the running executable, so a failing test names where
    ///   it looked. Check `FileManager.default.isExecutableFile(atPath:)` before relying on it.
    public static func builtProduct(_ name: String) -> URL {
        let candidates = productDirectories.map { $0.appendingPathComponent(name) }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    /// Directories that may hold the products, best first.
    private static var productDirectories: [URL] {
        var directories: [URL] = []
        // On Linux the test bundle is itself the executable (`…PackageTests.xctest`).
        let running = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        directories.append(running.deletingLastPathComponent())
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            directories.append(executable.deletingLastPathComponent())
        }
        directories.append(Bundle.main.bundleURL.resolvingSymlinksInPath())
        directories.append(Bundle.main.bundleURL.resolvingSymlinksInPath().deletingLastPathComponent())
        return directories
    }
}
