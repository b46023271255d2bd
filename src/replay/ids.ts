// Identifiers across a replay. The recording's answers created identifiers (a card id, a transaction id, a challenge
// id, an event id, a deposit address...); the replay's answers create others at the same places. The first time an
// id-like value shows in a recorded answer, the value the replayed answer holds at the same JSON pointer becomes its
// image, and from then on the image stands for it: in the requests sent after (bodies and paths) and when later
// answers are compared. Values first seen in a request (an alias, a key the client chose) are the client's and are
// never mapped.

/** `txn_...`, `evt_...`, `acct_...`, `req_...`: a short lower-case prefix and random characters. */
const PREFIXED = /^[a-z]{2,8}_[A-Za-z0-9]{6,}$/;
/** Long digit runs: card ids (22 digits). */
const LONG_DIGITS = /^\d{16,}$/;
/** Letters and digits together, 8 characters or more: BIN ids, chain transaction ids, UUIDs, TRON addresses. */
const MIXED = /^(?=[^\d]*\d)(?=[^A-Za-z]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9_-]{7,127}$/;

function isIdLike(value: unknown): value is string {
  return typeof value === 'string' && (PREFIXED.test(value) || LONG_DIGITS.test(value) || MIXED.test(value));
}

/**
 * Identifiers remembered of each kind: a recording of millions of lines must not grow the replay's memory with it. An
 * id first seen more than this many ids ago is forgotten (oldest first): a later request naming it is skipped, with
 * its reason, as one naming an id the replay cannot supply.
 */
const MAX_IDS = 100_000;

/** Keeps `set` within MAX_IDS by forgetting its oldest entries. */
function trim<T>(set: Set<T>): void {
  for (const key of set) {
    if (set.size <= MAX_IDS) break;
    set.delete(key);
  }
}

/** Keys whose value names something the account's own history made (it cannot be chosen by the client). */
const STATE_KEYS = new Set(['cardId', 'transactionId', 'challengeId', 'eventId']);

export interface Unresolved {
  pointer: string;
  value: string;
  /** created: the recording made it and the replay did not; earlier: it existed before the recording began. */
  why: 'created' | 'earlier';
}

export class IdMap {
  private readonly images = new Map<string, string>();
  private readonly taken = new Set<string>();
  /** Id-like values the recording's requests carried before any answer showed them (the client's own). */
  private readonly fromRequests = new Set<string>();
  /** Id-like values first seen in a recorded answer. */
  private readonly created = new Set<string>();

  /** Notes the id-like values of a recorded request, before its answer is compared. */
  noteRequest(value: unknown): void {
    for (const s of strings(value)) if (isIdLike(s) && !this.created.has(s)) this.fromRequests.add(s);
    trim(this.fromRequests);
  }

  /** Notes the id-like values of a recorded answer that had nothing to be compared with. */
  noteAnswer(value: unknown): void {
    for (const s of strings(value)) this.firstSeen(s);
  }

  /**
   * Whether a recorded string and the replayed value at the same place are the same identity: the image of a mapped
   * id, or a new mapping when the recorded value is an id the recording's answer created here.
   */
  same(recorded: string, replayed: unknown): boolean {
    const image = this.images.get(recorded);
    if (image !== undefined) return image === replayed;
    if (!this.firstSeen(recorded)) return recorded === replayed;
    if (isIdLike(replayed) && !this.taken.has(replayed)) {
      this.images.set(recorded, replayed);
      this.taken.add(replayed);
      // The oldest mapping goes, with the image it took.
      for (const [old, image] of this.images) {
        if (this.images.size <= MAX_IDS) break;
        this.images.delete(old);
        this.taken.delete(image);
      }
      return true;
    }
    return recorded === replayed;
  }

  /** The image of a recorded value, or the value itself. */
  image(value: string): string {
    return this.images.get(value) ?? value;
  }

  /** A recorded request body with every mapped id replaced by its image. */
  substitute(value: unknown): unknown {
    if (typeof value === 'string') return this.image(value);
    if (Array.isArray(value)) return value.map((v) => this.substitute(v));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.substitute(v)]));
    }
    return value;
  }

  /** A recorded path and query with every mapped id replaced, segment by segment and value by value. */
  substitutePath(path: string): string {
    const q = path.indexOf('?');
    const swap = (part: string) => {
      let decoded: string;
      try {
        decoded = decodeURIComponent(part);
      } catch {
        return part;
      }
      const image = this.images.get(decoded);
      return image === undefined ? part : encodeURIComponent(image);
    };
    const segments = (q < 0 ? path : path.slice(0, q)).split('/').map(swap).join('/');
    if (q < 0) return segments;
    const query = path
      .slice(q + 1)
      .split('&')
      .map((pair) => {
        const eq = pair.indexOf('=');
        return eq < 0 ? pair : `${pair.slice(0, eq)}=${swap(pair.slice(eq + 1))}`;
      })
      .join('&');
    return `${segments}?${query}`;
  }

  /**
   * The first identifier a request needs that the replay cannot supply: one the recording created and the replay did
   * not, or (under a key such as `cardId`) one that existed before the recording began, when the recorded answer was
   * a success (a deliberate unknown id, answered 4001, is replayed as it was).
   */
  unresolved(body: unknown, path: string, recordedSuccess: boolean): Unresolved | undefined {
    const segments = path.split('?')[0]!.split('/');
    for (const [i, segment] of segments.entries()) {
      if (this.created.has(segment) && !this.images.has(segment)) {
        return { pointer: `path segment ${i}`, value: segment, why: 'created' };
      }
    }
    for (const [pointer, key, s] of leaves(body, '', '')) {
      if (this.created.has(s) && !this.images.has(s)) return { pointer, value: s, why: 'created' };
      if (recordedSuccess && STATE_KEYS.has(key) && isIdLike(s) && !this.created.has(s) && !this.fromRequests.has(s)) {
        return { pointer, value: s, why: 'earlier' };
      }
    }
    return undefined;
  }

  /** Marks a value seen in an answer; true when this is the first sight of an id the recording created. */
  private firstSeen(value: string): boolean {
    if (!isIdLike(value) || this.fromRequests.has(value) || this.created.has(value)) return false;
    this.created.add(value);
    trim(this.created);
    return true;
  }
}

function* strings(value: unknown, depth = 0): Generator<string> {
  if (depth > 64) return;
  if (typeof value === 'string') yield value;
  else if (Array.isArray(value)) for (const v of value) yield* strings(v, depth + 1);
  else if (value !== null && typeof value === 'object')
    for (const v of Object.values(value)) yield* strings(v, depth + 1);
}

/** Every string leaf: its JSON pointer, the key it sits under, its value. */
function* leaves(value: unknown, pointer: string, key: string, depth = 0): Generator<[string, string, string]> {
  if (depth > 64) return;
  if (typeof value === 'string') yield [pointer || '/', key, value];
  else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) yield* leaves(v, `${pointer}/${i}`, key, depth + 1);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      yield* leaves(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, k, depth + 1);
    }
  }
}
