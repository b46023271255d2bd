import { DomainError, invalidField } from '../domain/kernel/errors.js';
import { signatureInSlices, type SnapshotDocument } from '../domain/snapshots/export.js';
import type { ServerDeps } from './server-deps.js';
import { webhookUrlProblem } from '../webhooks/url-policy.js';
import { validateDocument } from './request-schema.js';

/** The schema every snapshot is held to, after its version (contracts/sandbox/snapshot/snapshot.json). */
const SNAPSHOT_SCHEMA = 'sandbox/snapshot/snapshot.json';

/**
 * A snapshot this server may load: its format and version first, then the whole document against its schema (done
 * already for a request body: its contract's schema is this one), then (when `ownOnly`) this server's own signature
 * over it, and a webhook URL this server would take on `PUT /v1/webhook`.
 */
export async function readSnapshot(
  deps: ServerDeps,
  body: Record<string, unknown>,
  { ownOnly, checked = false, tenantId }: { ownOnly: boolean; checked?: boolean; tenantId?: string },
): Promise<SnapshotDocument> {
  const doc = (checked ? body : await validateDocument(SNAPSHOT_SCHEMA, body)) as SnapshotDocument;
  // Checked in slices, in the tenant's turns (a request's), or at once (serve --snapshot, before anyone is served).
  const pause = tenantId === undefined ? () => Promise.resolve() : () => deps.fairShare.turn(tenantId);
  if (ownOnly && doc.signature !== (await signatureInSlices(deps, doc, pause))) {
    throw new DomainError('SNAPSHOT_NOT_SIGNED');
  }
  const webhook = doc.webhook as { url: string } | null;
  const problem = webhook && (await webhookUrlProblem(deps.config, webhook.url));
  if (problem) throw invalidField(`webhook.${problem}`);
  return doc;
}
