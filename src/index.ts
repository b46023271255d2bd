// The package's programmatic surface: embed the sandbox in a test suite.
export { createApp } from './app.js';
export { loadConfig, DEFAULT_CONFIG, type Config } from './config.js';
export { startServer, type RunningServer } from './server.js';
export { createDeps } from './wiring.js';
export { bootstrapAccount } from './bootstrap.js';
