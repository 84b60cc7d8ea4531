/**
 * S3's rules for a general purpose bucket's name, checked in one pass over at most 63 characters. s3rver
 * checks names with `/^[a-z0-9]+(.?[-a-z0-9]+)*$/`, which backtracks exponentially on a name that almost
 * matches (`'a'.repeat(24) + '!'` blocks the thread for seconds, 63 characters for hours), so a name is
 * checked here before s3rver sees it.
 *
 * The rules (Amazon S3 User Guide, "General purpose bucket naming rules"): 3 to 63 characters; lowercase
 * letters, numbers, periods and hyphens only; a letter or number first and last; no two adjacent
 * periods; not formatted as an IP address; none of the reserved prefixes and suffixes.
 */
const MIN_LENGTH = 3;
const MAX_LENGTH = 63;
const RESERVED_PREFIXES = ['xn--', 'sthree-', 'amzn-s3-demo-'] as const;
const RESERVED_SUFFIXES = ['-s3alias', '--ol-s3', '.mrap', '--x-s3', '--table-s3'] as const;

const isLowerAlnum = (c: string): boolean => (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');

/** Whether S3 accepts `name` for a new general purpose bucket. */
export function isValidBucketName(name: string): boolean {
  if (name.length < MIN_LENGTH || name.length > MAX_LENGTH) return false;
  if (!isLowerAlnum(name[0]!) || !isLowerAlnum(name[name.length - 1]!)) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name[i]!;
    if (c === '.' && name[i - 1] === '.') return false;
    if (!isLowerAlnum(c) && c !== '.' && c !== '-') return false;
  }
  if (isIpv4Shaped(name)) return false;
  return !RESERVED_PREFIXES.some((p) => name.startsWith(p)) && !RESERVED_SUFFIXES.some((s) => name.endsWith(s));
}

/** Four dot-separated groups of digits, as `192.168.5.4`: S3 refuses names "formatted as an IP address". */
function isIpv4Shaped(name: string): boolean {
  const parts = name.split('.');
  return (
    parts.length === 4 && parts.every((p) => p.length > 0 && p.length <= 3 && [...p].every((c) => c >= '0' && c <= '9'))
  );
}
