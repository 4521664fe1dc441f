import Foundation
import HTTPDNSCLI

exit(await HTTPDNSTool.run(Array(CommandLine.arguments.dropFirst())))
