import { isSecretName } from './secret-names.js';

// Secrets under a name in the bodies that are not JSON: an XML element (`<cvv>123</cvv>`, CDATA included) and a
// multipart form part (`Content-Disposition: form-data; name="cvv"`, a blank line, the value). The value is censored
// whole, as a JSON field under the same name is. Attributes (`cvv="123"`) and form fields (`cvv=123`) are free text's
// `name=value`, which the redactor already censors. The work stays linear in the text's length whatever it holds
// (test/redaction/adversarial.test.ts): elements are found by a scan, parts by an expression whose every repetition
// that could run past the next line is bounded.

/** An opening tag at a given index; its name may carry a namespace prefix (`<card:cvv>`). */
const OPEN_TAG = /<([A-Za-z_][\w.-]{0,63}:)?([A-Za-z_][\w.-]{0,127})(?:\s[^<>]{0,1024})?>/y;
const CLOSE_REST = /\s*>/y;
const CDATA = '<![CDATA[';
/** A part's name, the rest of its headers, the blank line, and its value up to the next boundary (or the end). */
const PART =
  /(name\s*=\s*"([^"\r\n]{1,128})"[^\r\n]{0,1024}(?:\r?\n[^\r\n]{1,1024}){0,8}\r?\n\r?\n)([\s\S]*?)(?=\r?\n--|$)/g;

/** The text with every XML element and multipart part under a secret name censored (`censor` is the mask). */
export function censorMarkup(text: string, censor: string): string {
  let out = text.includes('</') ? censorElements(text, censor) : text;
  if (/form-data/i.test(out)) {
    out = out.replace(PART, (whole, head: string, name: string, value: string) =>
      isSecretName(name) && value !== '' ? head + censor : whole,
    );
  }
  return out;
}

/** Every element named as a secret whose content is text or CDATA, its content censored. */
function censorElements(text: string, censor: string): string {
  const cdataEnds = new NextIndex(text, ']]>');
  let out = '';
  let copied = 0;
  for (let at = text.indexOf('<'); at >= 0; at = text.indexOf('<', at + 1)) {
    OPEN_TAG.lastIndex = at;
    const open = OPEN_TAG.exec(text);
    if (!open || !isSecretName(open[2]!)) continue;
    const start = at + open[0].length;
    // The content runs to the next `<` that does not open a CDATA section.
    let end = start;
    let lt = text.indexOf('<', end);
    while (lt >= 0 && text.startsWith(CDATA, lt)) {
      const cdataEnd = cdataEnds.from(lt + CDATA.length);
      // A CDATA section that never closes: this element cannot (a later one still may).
      if (cdataEnd < 0) break;
      end = cdataEnd + 3;
      lt = text.indexOf('<', end);
    }
    // No `<` left: no element can close any more.
    if (lt < 0) break;
    if (text.startsWith(CDATA, lt)) continue;
    end = lt;
    const close = `</${open[1] ?? ''}${open[2]}`;
    CLOSE_REST.lastIndex = end + close.length;
    if (end === start || !text.startsWith(close, end) || !CLOSE_REST.test(text)) continue;
    out += text.slice(copied, start) + censor;
    copied = end;
    at = end - 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** `indexOf(needle, from)` answered from the last search when it still holds: the scan never searches twice. */
class NextIndex {
  private searchedFrom = Infinity;
  private found = -1;

  constructor(
    private readonly text: string,
    private readonly needle: string,
  ) {}

  from(index: number): number {
    if (index >= this.searchedFrom && (this.found < 0 || index <= this.found)) return this.found;
    this.searchedFrom = index;
    this.found = this.text.indexOf(this.needle, index);
    return this.found;
  }
}
