// The connection settings the server-pipeline unit tests build their pipelines with.
export const PIPELINE_SETTINGS = {
  keepAliveTimeoutMs: 5000,
  headersTimeoutMs: 5000,
  requestTimeoutMs: 5000,
  connectionsCheckIntervalMs: 1000,
  maxConnections: 100,
};
