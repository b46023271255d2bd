import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { clientOf } from './address-groups.js';

// Hosted mode: how many connections the server holds, and who holds them. A connection that has carried no
// authenticated request yet is anonymous: it belongs to no tenant, so no tenant budget bounds it. Anonymous
// connections are bounded per client (an IPv4 address, an IPv6 /64) and in total, and every connection in total,
// each cap derived from the process's open-file limit read at start (a cap above it once let 1,100 idle sockets under
// a 1,024 limit starve every keyed request of a descriptor). Near a cap, idle connections go first (anonymous before
// a tenant's, oldest first), so a new connection, which may carry a keyed request, is always let in while any
// connection is idle; only a server whose every connection is busy turns one away.

export interface ConnectionLimits {
  /** The process's open-file limit (soft), as read at start. */
  fileLimit: number;
  /** Connections at most: half the file limit (the database, its WAL, the log and webhook sockets need theirs). */
  total: number;
  /** Anonymous connections at most: half of `total`, so anonymous ones never crowd out a tenant's idle ones. */
  anonymous: number;
  /** Anonymous connections per client address (IPv6: per /64). */
  perClient: number;
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
  return { fileLimit, total, anonymous, perClient } satisfies ConnectionLimits;
}

/** Node's own cap, a backstop above ours: past it Node drops a connection before anyone could make room for it. */
const NODE_CAP_MARGIN = 64;

/**
 * Node sets `_httpMessage` on a socket while a response is under way on it, and clears it once the response is sent:
 * a socket without one is between requests (or before its first), the connection a server can close at no loss.
 */
const isIdle = (socket: Socket) => !(socket as Socket & { _httpMessage?: unknown })._httpMessage;

export class ConnectionGuard {
  /** Every open connection, oldest first, and its client (while it is anonymous). */
  private readonly open = new Map<Socket, { client: string | undefined }>();
  /** Anonymous connections, oldest first: all of them, and per client. */
  private readonly anonymous = new Set<Socket>();
  private readonly byClient = new Map<string, Set<Socket>>();
  /** Connections closed to make room, and connections turned away (every one busy). */
  evicted = 0;
  refused = 0;

  constructor(readonly limits: ConnectionLimits) {}

  /** Takes a new connection in, making room first where a cap is reached; false when it was turned away. */
  accept(socket: Socket): boolean {
    const client = clientOf(socket.remoteAddress ?? 'unknown');
    const mine = this.byClient.get(client);
    const room =
      (mine === undefined || mine.size < this.limits.perClient || this.closeIdle(mine)) &&
      (this.anonymous.size < this.limits.anonymous || this.closeIdle(this.anonymous)) &&
      (this.open.size < this.limits.total || this.closeIdle(this.anonymous) || this.closeIdle(this.open.keys()));
    if (!room) {
      this.refused++;
      socket.destroy();
      return false;
    }
    this.open.set(socket, { client });
    this.anonymous.add(socket);
    let set = this.byClient.get(client);
    if (!set) this.byClient.set(client, (set = new Set()));
    set.add(socket);
    socket.once('close', () => this.forget(socket));
    return true;
  }

  /** The connection carried an authenticated request: it is a tenant's now (its tenant budget bounds it). */
  claim(socket: Socket): void {
    const entry = this.open.get(socket);
    if (entry?.client === undefined) return;
    this.dropAnonymous(socket, entry.client);
    entry.client = undefined;
  }

  /** Open connections now: all, and anonymous. */
  counts(): { open: number; anonymous: number } {
    return { open: this.open.size, anonymous: this.anonymous.size };
  }

  /** Closes the oldest idle connection among `sockets`; false when every one is busy. */
  private closeIdle(sockets: Iterable<Socket>): boolean {
    for (const socket of sockets) {
      if (!isIdle(socket)) continue;
      this.forget(socket);
      socket.destroy();
      this.evicted++;
      return true;
    }
    return false;
  }

  private forget(socket: Socket): void {
    const entry = this.open.get(socket);
    if (!entry) return;
    this.open.delete(socket);
    if (entry.client !== undefined) this.dropAnonymous(socket, entry.client);
  }

  private dropAnonymous(socket: Socket, client: string): void {
    this.anonymous.delete(socket);
    const set = this.byClient.get(client);
    set?.delete(socket);
    if (set?.size === 0) this.byClient.delete(client);
  }
}

/** Puts the guard (deps.connectionGuard, hosted mode) in front of the server's connections. */
export function guardConnections(server: Server, guard: ConnectionGuard): void {
  server.maxConnections = guard.limits.total + NODE_CAP_MARGIN;
  // Before every other 'connection' listener: a connection turned away is never timed or parsed.
  server.prependListener('connection', (socket: Socket) => void guard.accept(socket));
}
