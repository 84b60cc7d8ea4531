import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** The current link-signature scheme. A new scheme gets a new prefix; old links keep verifying under theirs. */
export const LINK_SIGNATURE_VERSION = 'v1';

/** Why a link does not verify. */
export type LinkRejection = 'malformed' | 'forged' | 'expired';

/** What {@link ApprovalLinkSigner.verify} says. Verification never throws on bad input. */
export type LinkVerification =
  | { readonly valid: true; readonly id: string; readonly expiresAtSeconds: number }
  | { readonly valid: false; readonly reason: LinkRejection; readonly id: string; readonly expiresAtSeconds?: number };

/**
 * Signs and verifies approval links: `sig = v1.<expiresAtSeconds>.<base64url HMAC-SHA256("v1:<id>:<expiry>")>`.
 * Secrets are newest first: links are signed with the first and verified against all, so a secret can
 * rotate without breaking links already sent.
 */
export class ApprovalLinkSigner {
  constructor(private readonly secrets: readonly string[]) {
    if (secrets.length === 0 || secrets.some((s) => s.length === 0))
      throw new Error('ApprovalLinkSigner needs at least one non-empty secret');
  }

  /** The `sig` query value for approval `id`, valid until `expiresAtSeconds`. */
  sign(id: string, expiresAtSeconds: number): string {
    return `${LINK_SIGNATURE_VERSION}.${expiresAtSeconds}.${mac(this.secrets[0], id, expiresAtSeconds)}`;
  }

  /**
   * Checks a link's signature, then its expiry (a forged expired link is reported as forged). A link has one
   * spelling, the one {@link sign} writes: any other (padding, the `+`/`/` alphabet, other unused low bits in
   * the last character, leading zeros in the expiry) is forged, so the signature is compared as the exact
   * text signed, never decoded first.
   */
  verify(id: string, sig: string | undefined, nowMillis: number): LinkVerification {
    const parts = (sig ?? '').split('.');
    if (parts.length !== 3 || parts[0] !== LINK_SIGNATURE_VERSION || !/^\d{1,16}$/.test(parts[1]) || !id) {
      return { valid: false, reason: 'malformed', id };
    }
    const expiresAtSeconds = Number(parts[1]);
    const given = Buffer.from(sig!, 'utf8');
    const genuine = this.secrets.some((secret) => {
      const expected = Buffer.from(
        `${LINK_SIGNATURE_VERSION}.${expiresAtSeconds}.${mac(secret, id, expiresAtSeconds)}`,
        'utf8',
      );
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
    if (!genuine) return { valid: false, reason: 'forged', id };
    if (nowMillis >= expiresAtSeconds * 1000) return { valid: false, reason: 'expired', id, expiresAtSeconds };
    return { valid: true, id, expiresAtSeconds };
  }
}

function mac(secret: string, id: string, expiresAtSeconds: number): string {
  return createHmac('sha256', secret).update(`${LINK_SIGNATURE_VERSION}:${id}:${expiresAtSeconds}`).digest('base64url');
}

/** Length of an approval id: 128 bits in hex. */
export const APPROVAL_ID_LENGTH = 32;

/**
 * The id of the approval that waits on `taskToken`, fixed when the approval is requested and stored with
 * it: a hash of the token (unguessable, and a retried request for the same token gets the same id), in
 * lowercase hex, so it never starts with `-` (which a command line reads as an option) and never depends
 * on the signing key (a key rotation does not rename approvals).
 */
export function approvalIdForToken(taskToken: string): string {
  return createHash('sha256').update(`approval-id:${taskToken}`).digest('hex').slice(0, APPROVAL_ID_LENGTH);
}
