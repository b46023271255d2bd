import type { Config } from '../config.js';

/**
 * Printed when `serve` starts on a database whose ready account an earlier start made: its key was shown once
 * then and only its hash is kept, so a lost key can only be replaced. The text avoids the words of the
 * shown-once line, which tests and scripts look for.
 */
export function reusedAccountHint(accountId: string, url: string, config: Config): string {
  const token = config.adminToken ? '$SANDBOX_ADMIN_TOKEN' : '<token>';
  return [
    '',
    `Ready account ${accountId} (made by an earlier start; its key was printed then and is not stored in clear).`,
    'Lost the key? Either issue another one through the operator API' +
      (config.adminToken ? ':' : ' (start with --admin-token <token> or SANDBOX_ADMIN_TOKEN to enable it):'),
    `  curl -X POST -H "Authorization: Bearer ${token}" ${url}/admin/v1/accounts/${accountId}/keys`,
    `or start on a fresh database, which makes a new ready account and prints its key: --db ./data/fresh.db`,
    '',
    '',
  ].join('\n');
}
