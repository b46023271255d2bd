/** Where a scenario file runs: a sandbox's base URL and the credentials the runner may use on it. */
export interface Target {
  baseUrl: string;
  adminToken: string | undefined;
  apiKey: string | undefined;
  /** The key may create child sandboxes there: each file then runs in a child it deletes after. */
  childSandboxes?: boolean;
  close(): Promise<void>;
}

/** A remote (or already running) sandbox; closing it does nothing. */
export function remoteTarget(baseUrl: string, apiKey?: string, adminToken?: string, childSandboxes = false): Target {
  return { baseUrl: baseUrl.replace(/\/+$/, ''), apiKey, adminToken, childSandboxes, close: async () => {} };
}
