import Foundation
import PackagePlugin

/// Builds `Public/` into the module it is applied to (PacenoteWeb): one generated Swift
/// file, made again whenever a file of Public/ changes.
@main
struct EmbedPublicPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let publicDirectory = context.package.directoryURL.appendingPathComponent("Public")
        var inputs: [URL] = []
        if let walker = FileManager.default.enumerator(at: publicDirectory, includingPropertiesForKeys: [.isRegularFileKey],
                                                        options: [.skipsHiddenFiles]) {
            for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
                inputs.append(url)
            }
        }
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("EmbeddedPublicFiles.swift")
        return [.buildCommand(
            displayName: "Embedding the site's \(inputs.count) files",
            executable: try context.tool(named: "EmbedPublic").url,
            arguments: [publicDirectory.path, output.path],
            inputFiles: inputs,
            outputFiles: [output])]
    }
}
