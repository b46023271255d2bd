import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  type Hmac,
} from 'node:crypto';

/**
 * The server secret: the root of every keyed hash (API keys), every derived cardholder datum (PAN, CVV, OTP)
 * and the encryption of stored webhook secrets. On SQLite it never enters the database (a file beside it, or the
 * configuration); on PostgreSQL, where instances share it, the database holds it unless the configuration gives it.
 */
export class ServerSecret {
  private readonly encryptionKey: Buffer;

  constructor(private readonly secret: Buffer) {
    if (secret.length < 32) throw new Error('server secret must be at least 32 bytes');
    this.encryptionKey = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'stored-secrets', 32));
  }

  /** The secret a configured text (`SANDBOX_SECRET`, `--secret`) stands for. */
  static fromText(text: string): ServerSecret {
    return new ServerSecret(createHash('sha256').update(text).digest());
  }

  static random(): ServerSecret {
    return new ServerSecret(randomBytes(32));
  }

  /** 32 random bytes as base64url text, the form of the `<db>.secret` file. */
  static randomText(): string {
    return randomBytes(32).toString('base64url');
  }

  /** HMAC-SHA256 under a purpose label, so a value derived for one use is useless for another. */
  hmac(purpose: string, data: string): Buffer {
    return this.hmacOf(purpose).update(data).digest();
  }

  /** The same HMAC, to be fed its data a piece at a time (what `hmac` would sign, in order). */
  hmacOf(purpose: string): Hmac {
    return createHmac('sha256', this.secret).update(purpose).update('\0');
  }

  /** AES-256-GCM, for secrets the sandbox must read back (webhook signing secrets). */
  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.encryptionKey, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
  }

  decrypt(sealed: string): string {
    const [iv, tag, body] = sealed.split('.').map((p) => Buffer.from(p, 'base64url')) as [Buffer, Buffer, Buffer];
    const decipher = createDecipheriv('aes-256-gcm', this.encryptionKey, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  }
}
