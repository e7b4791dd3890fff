export { type EnsureOptions, ensureEmbeddedServer, stopEmbeddedServer } from "./ensureServer.ts";
export { EmbeddedEndpoint } from "./reconnect.ts";
export { type ServerSettings, serverSettings } from "./server.ts";
export { type ServerFiles, type ServerInfo, serverFiles } from "./serverFiles.ts";
