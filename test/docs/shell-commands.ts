/** One shell command per entry of a block of a page: continuation lines joined, comments and blank lines dropped. */
export function shellCommands(block: string): string[] {
  return block
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}
