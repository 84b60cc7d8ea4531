import { createHmac, timingSafeEqual } from 'node:crypto';

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
    if (secrets.length === 0 || secrets.some((s) => s.length === 0)) throw new Error('ApprovalLinkSigner needs at least one non-empty secret');
  }

  /** The `sig` query value for approval `id`, valid until `expiresAtSeconds`. */
  sign(id: string, expiresAtSeconds: number): string {
    return `${LINK_SIGNATURE_VERSION}.${expiresAtSeconds}.${mac(this.secrets[0], id, expiresAtSeconds)}`;
  }

  /** Checks a link's signature, then its expiry (a forged expired link is reported as forged). */
  verify(id: string, sig: string | undefined, nowMillis: number): LinkVerification {
    const parts = (sig ?? '').split('.');
    if (parts.length !== 3 || parts[0] !== LINK_SIGNATURE_VERSION || !/^\d+$/.test(parts[1]) || !id) {
      return { valid: false, reason: 'malformed', id };
    }
    const expiresAtSeconds = Number(parts[1]);
    const given = Buffer.from(parts[2], 'base64url');
    const genuine = this.secrets.some((secret) => {
      const expected = Buffer.from(mac(secret, id, expiresAtSeconds), 'base64url');
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
    if (!genuine) return { valid: false, reason: 'forged', id };
    if (nowMillis >= expiresAtSeconds * 1000) return { valid: false, reason: 'expired', id, expiresAtSeconds };
    return { valid: true, id, expiresAtSeconds };
  }

  /**
   * An unguessable approval id derived from the task token (without the secret it cannot be computed or
   * inverted), so a retried approval-request for the same token yields the same id and link.
   */
  approvalIdFor(taskToken: string): string {
    return createHmac('sha256', this.secrets[0]).update(`approval-id:${taskToken}`).digest().subarray(0, 16).toString('base64url');
  }
}

function mac(secret: string, id: string, expiresAtSeconds: number): string {
  return createHmac('sha256', secret).update(`${LINK_SIGNATURE_VERSION}:${id}:${expiresAtSeconds}`).digest('base64url');
}
