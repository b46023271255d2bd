import type { EventType } from '../domain/events/types.js';
import { parseCommand, usageError, type CommandSpec } from './args.js';
import { requireTarget, targetOptions } from './target-options.js';
import { CliFailure, SandboxClient } from './client.js';
import { EVENT_TYPES, isEventType, sampleMerchant } from './event-samples.js';
import { isNetworkCase, NETWORK_CASES, runNetworkCase, type NetworkCase } from './trigger-cases.js';

// `card-sandbox trigger EVENT_TYPE`: makes the sandbox emit one real event of that type through the partner and
// simulation APIs (seeding, issuing a card, authorising... whatever the event needs), then finds its id in
// /sandbox/v1/events. The event is delivered to the account's webhook like any other. `card-sandbox trigger CASE`
// plays one of the card network's hard cases (trigger-cases.ts) and prints the ids of the events it sent.

export const TRIGGER_SPEC = {
  command: 'card-sandbox trigger',
  synopsis: '(EVENT_TYPE | CASE) --base-url URL --api-key KEY [--card ID] | trigger --list',
  summary:
    'Makes the sandbox emit one event of the type (creating what it needs: a seeded wallet, a card, an authorisation) and prints its id; or plays a card network hard case and prints the ids of its events.',
  allowPositionals: true,
  options: {
    ...targetOptions(),
    card: { type: 'string', arg: 'ID', help: 'act on this card instead of issuing a new one (not for card.created)' },
    list: { type: 'boolean', help: 'list the event types' },
  },
  footer: `event types: ${EVENT_TYPES.join(', ')}\nhard cases: ${NETWORK_CASES.join(', ')}\nexit codes: 0 the event was emitted, 1 a call failed, 2 usage, 3 unreachable or the key refused`,
} as const satisfies CommandSpec;

/** The alias of the card trigger issues (its purchases are at sample merchants, as real ones are). */
const ALIAS = 'card-sandbox trigger';
/** Enough for a card of CARD_AMOUNT with the default fees, seeded for free on the sandbox. */
const SEED_AMOUNT = 50;
const CARD_AMOUNT = 20;

export async function runTrigger(argv: string[]): Promise<number> {
  const parsed = parseCommand(TRIGGER_SPEC, argv);
  if (!parsed.ok) return parsed.exitCode;
  const { values, positionals } = parsed;
  if (values.list) {
    process.stdout.write(`${[...EVENT_TYPES, ...NETWORK_CASES].join('\n')}\n`);
    return 0;
  }
  const [type, ...extra] = positionals;
  const problem =
    type === undefined
      ? 'an EVENT_TYPE or a CASE is required (trigger --list shows them)'
      : !isEventType(type) && !isNetworkCase(type)
        ? `unknown event type or case ${JSON.stringify(type)}; one of ${[...EVENT_TYPES, ...NETWORK_CASES].join(', ')}`
        : extra.length > 0
          ? `one event type at a time (got ${positionals.length})`
          : type === 'card.created' && values.card
            ? 'card.created issues its own card: drop --card'
            : undefined;
  if (problem) return usageError(TRIGGER_SPEC, problem).exitCode;
  const target = requireTarget(values);
  if ('problem' in target) return usageError(TRIGGER_SPEC, target.problem).exitCode;
  try {
    const client = new SandboxClient(target.baseUrl, target.apiKey);
    if (isNetworkCase(type!)) {
      const played = await triggerCase(client, type, values.card);
      process.stdout.write(
        `${type} ${played.eventIds.join(' ')} (card ${played.cardId}, transaction ${played.transactionId})\n`,
      );
      return 0;
    }
    const { eventId, cardId } = await trigger(client, type as EventType, values.card);
    process.stdout.write(`${type} ${eventId} (card ${cardId})\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof CliFailure)) throw err;
    process.stderr.write(`card-sandbox trigger: ${err.message}\n`);
    return err.exitCode;
  }
}

/** Emits one event of the type and returns its id, found among the events that were not there before. */
export async function trigger(
  client: SandboxClient,
  type: EventType,
  givenCard?: string,
): Promise<{ eventId: string; cardId: string }> {
  const before = new Set((await events(client, type, 1000)).map((e) => e.id));
  const cardId = givenCard ?? (await issueCard(client));
  switch (type) {
    case 'card.created':
      break;
    case 'card.frozen':
      await client.post('/v1/card/freeze', { cardId });
      break;
    case 'card.unfrozen':
      await client.post('/v1/card/freeze', { cardId });
      await client.post('/v1/card/unfreeze', { cardId });
      break;
    case 'card.cancelled':
      await client.post('/v1/card/cancel', { cardId });
      break;
    case 'card.3ds.requested':
      // The answer carries the OTP: it is not printed.
      await client.post('/sandbox/v1/card/3ds', {
        cardId,
        type: 'payment',
        merchant: sampleMerchant('airline').merchantName,
      });
      break;
    case 'transaction.created':
      await authorize(client, cardId);
      break;
    case 'transaction.updated':
      await client.post('/sandbox/v1/transaction/clear', { transactionId: await authorize(client, cardId) });
      break;
  }
  // A cancellation completes on the account clock (cancelSeconds later): advance it in small steps until it has.
  for (let step = 0; ; step++) {
    const found = (await events(client, type, 50)).find((e) => !before.has(e.id));
    if (found) return { eventId: found.id, cardId };
    if (type !== 'card.cancelled' || step >= 60) {
      throw new CliFailure(`no new ${type} event appeared in /sandbox/v1/events`, 1);
    }
    await client.post('/sandbox/v1/clock', { advanceSeconds: 10 });
  }
}

/** Plays a hard case; answers the ids of the transaction events it sent, oldest first. */
export async function triggerCase(client: SandboxClient, name: NetworkCase, givenCard?: string) {
  // /sandbox/v1/events lists newest first.
  const seen = async () =>
    (((await client.post('/sandbox/v1/events', { limit: 1000 })).events ?? []) as { id: string; type: string }[])
      .filter((e) => e.type.startsWith('transaction.'))
      .reverse();
  const before = new Set((await seen()).map((e) => e.id));
  const cardId = givenCard ?? (await issueCard(client));
  const transactionId = await runNetworkCase(client, name, cardId);
  const eventIds = (await seen()).filter((e) => !before.has(e.id)).map((e) => e.id);
  return { cardId, transactionId, eventIds };
}

async function events(client: SandboxClient, type: EventType, limit: number): Promise<{ id: string }[]> {
  return ((await client.post('/sandbox/v1/events', { type, limit })).events ?? []) as { id: string }[];
}

/** A funded card: the wallet is seeded first (free on the sandbox), so trigger works on an empty account. */
async function issueCard(client: SandboxClient): Promise<string> {
  await client.post('/sandbox/v1/wallet/seed', { amount: SEED_AMOUNT });
  const created = await client.post('/v1/card/create', { amount: CARD_AMOUNT, currency: 'USDT', alias: ALIAS });
  return String(created.cardId);
}

async function authorize(client: SandboxClient, cardId: string): Promise<string> {
  const auth = await client.post('/sandbox/v1/card/authorize', {
    cardId,
    amount: 5,
    currency: 'USD',
    ...sampleMerchant(),
  });
  if (auth.status !== 'PENDING') {
    throw new CliFailure(
      `the authorisation on ${cardId} was ${String(auth.status)} (${String(auth.declineReason)})`,
      1,
    );
  }
  return String(auth.transactionId);
}
