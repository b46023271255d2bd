import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { clientOf } from './address-groups.js';

// Hosted mode: how many connections the server holds, and who holds them. A connection that has carried no
// authenticated request yet is anonymous: it belongs to no tenant, so no tenant budget bounds it. Anonymous
// connections are bounded per client (an IPv4 address, an IPv6 /64) and in total, and every connection in total,
// each cap derived from the process's open-file limit read at start (a cap above it once let 1,100 idle sockets under
// a 1,024 limit starve every keyed request of a descriptor). Near a cap, an idle connection is closed to make room
// (anonymous before a tenant's, oldest first), so a new connection is let in while any connection is idle.
//
// Idle means carrying no request: between two requests, or without a request head since its first moment ended (a
// tenth of the headers timeout). In its first moment a connection may have its request on the wire still (a client
// slower than the server connects, then writes), so it is never closed to make room: closing those closed 236 of a
// 300-request burst from one address without an answer. A connection for which no room can be made is held instead,
// up to `limits.refusals` of them, and its first request decides (`admit`, asked by middleware/connection-bound.ts):
// one that carries a key (X-API-KEY, or the operator's Authorization) is let in wherever the total allows, since it
// counts against its tenant, not its address; any other is let in if room can be made now, else answered 429 with
// Retry-After and closed. A held connection waits for its request until the headers timeout; when the held are at
// their bound, the oldest one that sent no request in its first moment goes to make room (it carried none), else
// the new connection is closed unanswered, as Node's own cap would close it.
//
// Behind a trusted proxy (`--trust-proxy`) a connection is the proxy's, carrying one partner's request after
// another's: it has no one client, so it is not bounded per client (that would let one partner's connections refuse
// another's requests); the anonymous and total caps bound it, and each request's own client (client-address.ts) is
// what the per-client throttles count.

export interface ConnectionLimits {
  /** The process's open-file limit (soft), as read at start. */
  fileLimit: number;
  /** Connections at most: half the file limit (the database, its WAL, the log and webhook sockets need theirs). */
  total: number;
  /** Anonymous connections at most: half of `total`, so anonymous ones never crowd out a tenant's idle ones. */
  anonymous: number;
  /** Anonymous connections per client address (IPv6: per /64). */
  perClient: number;
  /** Connections held over a bound until their first request is answered (an eighth of `total`, at least 8). */
  refusals: number;
}

/** Assumed where the limit cannot be read (no /proc): Linux's usual default soft limit. */
const ASSUMED_FILE_LIMIT = 1024;

/**
 * The process's soft open-file limit, from /proc/self/limits; undefined where that cannot be read.
 * @internal exported for its tests, which also size a flood by their own limit
 */
export function readFileLimit(limitsText?: string): number | undefined {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return undefined;
    }
  }
  const soft = /^Max open files\s+(\S+)/m.exec(text)?.[1];
  if (soft === undefined) return undefined;
  return soft === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(soft);
}

/** The caps for a configured maximum (0: none) under a file limit. */
export function connectionLimits(configured: number, fileLimit = readFileLimit() ?? ASSUMED_FILE_LIMIT) {
  const total = Math.max(1, Math.min(configured > 0 ? configured : Number.MAX_SAFE_INTEGER, Math.floor(fileLimit / 2)));
  const anonymous = Math.max(1, Math.floor(total / 2));
  const perClient = Math.min(anonymous, Math.max(8, Math.floor(total / 64)));
  const refusals = Math.max(8, Math.floor(total / 8));
  return { fileLimit, total, anonymous, perClient, refusals } satisfies ConnectionLimits;
}

/** Node's own cap, a backstop above ours: past it Node drops a connection before anyone could make room for it. */
const NODE_CAP_MARGIN = 64;

/**
 * How long a new connection has to send its request head before it counts as carrying none: a tenth of the headers
 * timeout (hosted: 1 s of 10), the operator's own measure of a client's patience.
 */
export const firstRequestMs = (headersTimeoutMs: number) => Math.ceil(headersTimeoutMs / 10);

/** Node sets `_httpMessage` on a socket while a response is under way on it, and clears it once it is sent. */
const answering = (socket: Socket) => Boolean((socket as Socket & { _httpMessage?: unknown })._httpMessage);

interface Connection {
  /** Its client while it is anonymous; undefined once it is a tenant's, or when it is a trusted proxy's. */
  client: string | undefined;
  anonymous: boolean;
  /** It has carried a request: between two requests it carries none, and may be closed at once. */
  carried: boolean;
  /** Its first moment is over without a request head read (checked after a poll for input: none is left unread). */
  silent: boolean;
  /** Held over a bound: its first request is answered 429 unless it may come in then. */
  held: boolean;
  /** Its first request was refused: answered 429, the connection closes after it. */
  refusal: Refusal | undefined;
  firstMoment: NodeJS.Timeout | undefined;
}

/** The bound a held connection's request was refused by, and its size. */
export interface Refusal {
  bound: 'client' | 'anonymous' | 'total';
  limit: number;
}

/** A request on a connection that came in over a bound: let in (for its key, or because room was made), or refused. */
export type Admission = { admitted: true; byKey: boolean } | ({ admitted: false } & Refusal);

const ADMITTED: Admission = Object.freeze({ admitted: true, byKey: false });
const ADMITTED_BY_KEY: Admission = Object.freeze({ admitted: true, byKey: true });

export interface GuardOptions {
  /** Whether a connection from an address is a trusted proxy's (client-address.ts); none by default. */
  trusts?: (address: string | undefined) => boolean;
  /** A new connection's first moment (`firstRequestMs` of the headers timeout). */
  firstRequestMs: number;
}

export class ConnectionGuard {
  /** Every connection let in, oldest first. */
  private readonly open = new Map<Socket, Connection>();
  /** Connections held over a bound until their first request, oldest first. */
  private readonly held = new Map<Socket, Connection>();
  /** Anonymous connections let in, oldest first: all of them, and per client. */
  private readonly anonymous = new Set<Socket>();
  private readonly byClient = new Map<string, Set<Socket>>();
  /** Connections closed to make room (idle), requests answered 429 by a bound, connections closed unanswered. */
  evicted = 0;
  refused = 0;
  dropped = 0;

  private readonly trusts: (address: string | undefined) => boolean;
  private readonly firstRequestMs: number;

  constructor(
    readonly limits: ConnectionLimits,
    options: GuardOptions,
  ) {
    this.trusts = options.trusts ?? (() => false);
    this.firstRequestMs = options.firstRequestMs;
  }

  /** Takes a new connection in, making room first where a cap is reached, else holds it (or, past that, closes it). */
  accept(socket: Socket): 'admitted' | 'held' | 'dropped' {
    const address = socket.remoteAddress ?? 'unknown';
    const connection: Connection = {
      client: this.trusts(address) ? undefined : clientOf(address),
      anonymous: true,
      carried: false,
      silent: false,
      held: false,
      refusal: undefined,
      firstMoment: undefined,
    };
    if (this.fullBound(connection) === undefined) {
      this.letIn(socket, connection);
    } else if (this.held.size < this.limits.refusals || this.closeIdle(this.held.keys())) {
      connection.held = true;
      this.held.set(socket, connection);
    } else {
      this.dropped++;
      socket.destroy();
      return 'dropped';
    }
    // Once the first moment is over, and input has been polled for once more (a timer runs before the poll: after a
    // stall a request may be waiting unread), a connection that carried no request is idle.
    connection.firstMoment = setTimeout(() => setImmediate(() => this.firstMomentOver(socket)), this.firstRequestMs);
    connection.firstMoment.unref?.();
    socket.once('close', () => this.forget(socket));
    return connection.held ? 'held' : 'admitted';
  }

  /**
   * A request arrived on the connection (the connection-bound step, before anything else reads it). On a held
   * connection it decides: `keyed` (it carries X-API-KEY or Authorization) lets it in wherever the total allows, any
   * other where room can be made now; else it is refused, and its answer must be a 429 that closes the connection.
   */
  admit(socket: Socket, keyed: boolean): Admission {
    const connection = this.open.get(socket);
    if (connection) {
      connection.carried = true;
      return ADMITTED;
    }
    const held = this.held.get(socket);
    if (!held) return ADMITTED;
    if (held.refusal) return { admitted: false, ...held.refusal };
    held.carried = true;
    const full = keyed ? this.fullTotal() : this.fullBound(held);
    if (full === undefined) {
      this.held.delete(socket);
      held.held = false;
      this.letIn(socket, held);
      return keyed ? ADMITTED_BY_KEY : ADMITTED;
    }
    this.refused++;
    held.refusal = full;
    return { admitted: false, ...full };
  }

  /** The connection carried an authenticated request: it is a tenant's now (its tenant budget bounds it). */
  claim(socket: Socket): void {
    const connection = this.open.get(socket);
    if (!connection?.anonymous) return;
    this.dropAnonymous(socket, connection);
    connection.anonymous = false;
    connection.client = undefined;
  }

  /** Whether the connection was let in and carries no proven credential yet. */
  isAnonymous(socket: Socket): boolean {
    return this.open.get(socket)?.anonymous === true;
  }

  /** Open connections now: let in, anonymous among them, and held over a bound. */
  counts(): { open: number; anonymous: number; held: number } {
    return { open: this.open.size, anonymous: this.anonymous.size, held: this.held.size };
  }

  /** The first bound a new anonymous connection finds full (after closing an idle connection to make room). */
  private fullBound(connection: Connection): Refusal | undefined {
    const { perClient, anonymous } = this.limits;
    const mine = connection.client === undefined ? undefined : this.byClient.get(connection.client);
    if (mine !== undefined && mine.size >= perClient && !this.closeIdle(mine)) {
      return { bound: 'client', limit: perClient };
    }
    if (this.anonymous.size >= anonymous && !this.closeIdle(this.anonymous)) {
      return { bound: 'anonymous', limit: anonymous };
    }
    return this.fullTotal();
  }

  private fullTotal(): Refusal | undefined {
    const { total } = this.limits;
    const room = this.open.size < total || this.closeIdle(this.anonymous) || this.closeIdle(this.open.keys());
    return room ? undefined : { bound: 'total', limit: total };
  }

  private letIn(socket: Socket, connection: Connection): void {
    this.open.set(socket, connection);
    this.anonymous.add(socket);
    if (connection.client === undefined) return;
    let set = this.byClient.get(connection.client);
    if (!set) this.byClient.set(connection.client, (set = new Set()));
    set.add(socket);
  }

  /** A connection carries no request: none under way, and it has carried one already or its first moment is over. */
  private idle(socket: Socket, connection: Connection): boolean {
    return !connection.refusal && !answering(socket) && (connection.carried || connection.silent);
  }

  /** Closes the oldest idle connection among `sockets`; false when none is idle. */
  private closeIdle(sockets: Iterable<Socket>): boolean {
    for (const socket of sockets) {
      const connection = this.open.get(socket) ?? this.held.get(socket);
      if (!connection || !this.idle(socket, connection)) continue;
      this.forget(socket);
      socket.destroy();
      this.evicted++;
      return true;
    }
    return false;
  }

  private firstMomentOver(socket: Socket): void {
    const connection = this.open.get(socket) ?? this.held.get(socket);
    if (connection && !connection.carried) connection.silent = true;
  }

  private forget(socket: Socket): void {
    const connection = this.open.get(socket) ?? this.held.get(socket);
    if (!connection) return;
    clearTimeout(connection.firstMoment);
    this.open.delete(socket);
    this.held.delete(socket);
    if (connection.anonymous) this.dropAnonymous(socket, connection);
  }

  private dropAnonymous(socket: Socket, connection: Connection): void {
    this.anonymous.delete(socket);
    if (connection.client === undefined) return;
    const set = this.byClient.get(connection.client);
    set?.delete(socket);
    if (set?.size === 0) this.byClient.delete(connection.client);
  }
}

/** Puts the guard (deps.connectionGuard, hosted mode) in front of the server's connections. */
export function guardConnections(server: Server, guard: ConnectionGuard): void {
  server.maxConnections = guard.limits.total + guard.limits.refusals + NODE_CAP_MARGIN;
  // Before every other 'connection' listener: a connection closed at once is never timed or parsed.
  server.prependListener('connection', (socket: Socket) => void guard.accept(socket));
}
