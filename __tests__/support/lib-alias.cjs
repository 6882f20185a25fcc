// The one import alias for lib/ in tests, as tsconfig.json's `paths` declares it for the types:
// `@lib/log/logger` from any test's folder, never `../../../../lib/log/logger`. Each Jest config
// maps it (jest.config.js, jest.e2e.config.js, jest.reliability.config.js); the app's own code
// imports relatively (the server's compile, tsconfig.server.json, knows no alias).
module.exports = { '^@lib/(.*)$': '<rootDir>/lib/$1' };
