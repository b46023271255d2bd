/** The logging surface the domain may use; the server binds it to pino, tests to a capture. */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child(bindings: object): Logger;
  /** pino's: lets a caller skip building a record nobody will write. Absent means "assume enabled". */
  isLevelEnabled?(level: string): boolean;
}

export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return silentLogger;
  },
  // Nothing is written, so no caller need build a record (an access-log line redacts its path).
  isLevelEnabled: () => false,
};
