/** The Matrix channel module: a bot account through the Client-Server API. */
import { defineChannel } from "../module.js";
import { MatrixChannel, type MatrixChannelOptions } from "./channel.js";
import { checkMatrix } from "./check.js";
import { matrixConfigSchema, matrixFix } from "./config.js";

export { MatrixChannel, type MatrixChannelOptions };

export const matrixChannel = defineChannel({
  name: "matrix",
  configSchema: matrixConfigSchema,
  credentials: [
    { field: "homeserverUrl", env: "MATRIX_HOMESERVER_URL" },
    { field: "accessToken", env: "MATRIX_ACCESS_TOKEN" },
  ],
  secretPaths: ["accessToken"],
  envOverrides: {
    MATRIX_HOMESERVER_URL: { path: "homeserverUrl", type: "string" },
    MATRIX_ACCESS_TOKEN: { path: "accessToken", type: "string" },
    MATRIX_USER_ID: { path: "userId", type: "string" },
  },
  create: ({ settings, store, log, knownUser }) => {
    const { homeserverUrl, accessToken } = settings;
    // The config loader refuses an enabled channel without them; this only narrows the types.
    if (homeserverUrl === null || accessToken === null) throw new Error("The Matrix channel needs MATRIX_HOMESERVER_URL and MATRIX_ACCESS_TOKEN");
    return new MatrixChannel({ settings: { ...settings, homeserverUrl, accessToken }, store, log, ...(knownUser ? { knownUser } : {}) });
  },
  check: checkMatrix,
  fix: matrixFix,
});
