import { describe, expect, it } from 'vitest';
import { ApprovalLinkSigner, approvalIdForToken } from '@autosave/runtime/approvals';

const now = Date.UTC(2026, 10, 30, 12);
const exp = now / 1000 + 3600;
const signer = new ApprovalLinkSigner(['current-secret']);

describe('ApprovalLinkSigner', () => {
  it('verifies a link it signed, before its expiry', () => {
    expect(signer.verify('abc', signer.sign('abc', exp), now)).toEqual({
      valid: true,
      id: 'abc',
      expiresAtSeconds: exp,
    });
  });

  it.each([
    ['another id', (sig: string) => ({ id: 'abd', sig })],
    ['a moved expiry', (sig: string) => ({ id: 'abc', sig: sig.replace(`.${exp}.`, `.${exp + 86_400}.`) })],
    ['an edited MAC', (sig: string) => ({ id: 'abc', sig: sig.slice(0, -2) + (sig.endsWith('AA') ? 'BB' : 'AA') })],
    ['another secret', () => ({ id: 'abc', sig: new ApprovalLinkSigner(['attacker']).sign('abc', exp) })],
  ])('calls a link with %s forged', (_case, tamper) => {
    const { id, sig } = tamper(signer.sign('abc', exp));
    expect(signer.verify(id, sig, now)).toMatchObject({ valid: false, reason: 'forged' });
  });

  it.each([[undefined], [''], ['v2.1.abc'], ['v1.notanumber.abc'], ['v1.123']])('calls %s malformed', (sig) => {
    expect(signer.verify('abc', sig, now)).toMatchObject({ valid: false, reason: 'malformed' });
  });

  it('calls a genuine link expired from its expiry on', () => {
    expect(signer.verify('abc', signer.sign('abc', exp), exp * 1000)).toMatchObject({
      valid: false,
      reason: 'expired',
    });
  });

  it('still verifies links signed with a previous secret after rotation, and signs with the newest', () => {
    const old = new ApprovalLinkSigner(['old-secret']).sign('abc', exp);
    const rotated = new ApprovalLinkSigner(['new-secret', 'old-secret']);
    expect(rotated.verify('abc', old, now).valid).toBe(true);
    expect(new ApprovalLinkSigner(['new-secret']).verify('abc', rotated.sign('abc', exp), now).valid).toBe(true);
  });

  /** The last base64url character of a 32-byte MAC carries 2 unused low bits: flipping them decodes to the same bytes. */
  const lastCharTwin = (sig: string) => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(sig.at(-1)!);
    return sig.slice(0, -1) + alphabet[last ^ 1];
  };

  it.each([
    ['padded with =', (sig: string) => `${sig}=`],
    ['in the + / alphabet', (sig: string) => sig.replace(/-/g, '+').replace(/_/g, '/')],
    ['with other unused low bits in the last character', lastCharTwin],
    ['with leading zeros in the expiry', (sig: string) => sig.replace(`.${exp}.`, `.00${exp}.`)],
  ])('calls a genuine signature spelled otherwise (%s) forged: a link has one spelling', (_case, respell) => {
    // A signature whose MAC has both '-' or '_' in it makes the alphabet case bite; find one.
    let id = 'abc';
    let sig = signer.sign(id, exp);
    for (let i = 0; !/[-_]/.test(sig.split('.')[2]); i++) sig = signer.sign((id = `abc${i}`), exp);
    const other = respell(sig);
    expect(other).not.toBe(sig);
    expect(Buffer.from(other.split('.')[2], 'base64url').equals(Buffer.from(sig.split('.')[2], 'base64url'))).toBe(
      true,
    );
    expect(signer.verify(id, other, now)).toMatchObject({ valid: false, reason: 'forged' });
    expect(signer.verify(id, sig, now).valid).toBe(true);
  });

  it('derives a stable approval id from the task token that never starts with "-" and never depends on the signing key', () => {
    const id = approvalIdForToken('token-1');
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(approvalIdForToken('token-1')).toBe(id);
    expect(approvalIdForToken('token-2')).not.toBe(id);
    const ids = Array.from({ length: 2_000 }, (_, i) => approvalIdForToken(`token-${i}`));
    expect(ids.filter((i) => i.startsWith('-'))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
