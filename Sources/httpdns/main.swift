import Foundation
import HTTPDNSCLI

// A closed stdout must be an error the tool reports (exit 23, as curl), not a silent SIGPIPE death.
signal(SIGPIPE, SIG_IGN)
exit(await HTTPDNSTool.run(Array(CommandLine.arguments.dropFirst())))
