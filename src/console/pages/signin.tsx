import type { FC } from 'hono/jsx';
import { Shell } from '../shell.js';

// The sign-in page: an API key (and, when the server has one, the operator token). Posted in the body only,
// never put in a URL; what was typed is not echoed back on an error (it is a secret).

export const SignIn: FC<{ error?: { code: unknown; message: unknown }; operator: boolean }> = ({ error, operator }) => (
  <Shell title="Sign in" bare>
    <div class="panel">
      <h1>Sign in</h1>
      <p class="muted">Use an API key of a sandbox account. The console makes the same API calls your code makes.</p>
      {error && (
        <div class="flash error" role="alert">
          <strong>Sign-in failed</strong>
          Error <code>{String(error.code)}</code>: {String(error.message)}
        </div>
      )}
      <form method="post" action="/console/signin" class="stack">
        <div class="field">
          <label for="api-key">API key</label>
          <input id="api-key" name="apiKey" type="password" autocomplete="off" spellcheck={false} required />
        </div>
        <button type="submit">Sign in</button>
      </form>
    </div>
    {operator && (
      <div class="panel">
        <h2>Operator</h2>
        <form method="post" action="/console/operator/signin" class="stack">
          <div class="field">
            <label for="admin-token">Operator token</label>
            <input id="admin-token" name="adminToken" type="password" autocomplete="off" required />
          </div>
          <button type="submit" class="secondary">
            Operator sign-in
          </button>
        </form>
      </div>
    )}
  </Shell>
);
