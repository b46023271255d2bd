// The Luhn check (ISO/IEC 7812-1), written here from its definition for the tests' oracles, never taken from the code
// that makes or masks card numbers: from the right, every second digit doubled (its digits summed), and the total a
// multiple of ten. Checked against published vectors in test/cards/responses.test.ts.

export function luhnValid(number: string): boolean {
  const total = [...number].reverse().reduce((sum, ch, i) => {
    const d = Number(ch) * (i % 2 === 1 ? 2 : 1);
    return sum + Math.floor(d / 10) + (d % 10);
  }, 0);
  return total % 10 === 0;
}

/** `body` and the one digit that makes it Luhn-valid. */
export function withCheckDigit(body: string): string {
  for (let d = 0; d < 10; d++) if (luhnValid(`${body}${d}`)) return `${body}${d}`;
  throw new Error('unreachable: one of ten digits always completes a Luhn number');
}
