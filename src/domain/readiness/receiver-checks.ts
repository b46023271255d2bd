import { RECEIVER_CHECKS, noReceiver, outcome, type CheckOutcome, type ReceiverCheckId } from './catalogue.js';

// The receiver checks of a readiness run, judged from the test deliveries it sent: one delivery per check, the
// duplicate one delivered twice (two attempts of the same event, each signed afresh, as a retry is).

/** How many attempts each check's delivery gets. */
const PLANNED_ATTEMPTS: Record<ReceiverCheckId, number> = {
  'receiver-accepts-signed': 1,
  'receiver-rejects-bad-signature': 1,
  'receiver-rejects-stale-timestamp': 1,
  'receiver-rejects-tampered-body': 1,
  'receiver-accepts-duplicate': 2,
};

export interface ReadinessAttempt {
  atMs: number;
  /** The receiver's HTTP status, or null when it gave none (timeout, reset, refused connection). */
  status: number | null;
  latencyMs: number;
  /** Null when the attempt was acknowledged (2xx). */
  error: string | null;
}

export interface ReceiverDelivery {
  id: string;
  check: ReceiverCheckId;
  eventId: string;
  attempts: readonly ReadinessAttempt[];
}

const acknowledged = (a: ReadinessAttempt | undefined) => a !== undefined && a.error === null;

/**
 * The five receiver checks, in catalogue order. `deliveries` is empty when the run had no receiver. A delivery
 * without all its attempts (still sending, or cut by a restart) has nothing to observe. A refusal counts only once
 * the receiver acknowledged the correctly signed delivery: a receiver that refuses everything proves nothing.
 */
export function evaluateReceiverChecks(deliveries: readonly ReceiverDelivery[]): CheckOutcome[] {
  if (deliveries.length === 0) return RECEIVER_CHECKS.map(noReceiver);
  const of = (check: ReceiverCheckId) => deliveries.find((d) => d.check === check);
  const complete = (d: ReceiverDelivery) => d.attempts.length >= PLANNED_ATTEMPTS[d.check];
  const signed = of('receiver-accepts-signed');
  const signedPassed = signed !== undefined && complete(signed) && acknowledged(signed.attempts[0]);
  const signedId = signed ? [signed.id] : [];
  return RECEIVER_CHECKS.map((check) => {
    const d = of(check);
    if (!d) return outcome(check, 'not_observed');
    if (!complete(d)) return outcome(check, 'not_observed', [d.id]);
    switch (check) {
      case 'receiver-accepts-signed':
        return outcome(check, signedPassed ? 'pass' : 'fail', [d.id]);
      case 'receiver-accepts-duplicate':
        return outcome(check, d.attempts.every(acknowledged) ? 'pass' : 'fail', [d.id]);
      default:
        if (!signedPassed)
          return outcome(
            check,
            'not_observed',
            [...signedId, d.id],
            'The receiver did not acknowledge the correctly signed delivery. ',
          );
        return outcome(check, acknowledged(d.attempts[0]) ? 'fail' : 'pass', [d.id]);
    }
  });
}
