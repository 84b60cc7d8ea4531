import { describe, expect, it } from 'vitest';
import { ApprovalLinkSigner } from '../../../../lib/approvals';

const now = Date.UTC(2026, 10, 30, 12);
const exp = now / 1000 + 3600;
const signer = new ApprovalLinkSigner(['current-secret']);

describe('ApprovalLinkSigner', () => {
  it('verifies a link it signed, before its expiry', () => {
    expect(signer.verify('abc', signer.sign('abc', exp), now)).toEqual({ valid: true, id: 'abc', expiresAtSeconds: exp });
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
    expect(signer.verify('abc', signer.sign('abc', exp), exp * 1000)).toMatchObject({ valid: false, reason: 'expired' });
  });

  it('still verifies links signed with a previous secret after rotation, and signs with the newest', () => {
    const old = new ApprovalLinkSigner(['old-secret']).sign('abc', exp);
    const rotated = new ApprovalLinkSigner(['new-secret', 'old-secret']);
    expect(rotated.verify('abc', old, now).valid).toBe(true);
    expect(new ApprovalLinkSigner(['new-secret']).verify('abc', rotated.sign('abc', exp), now).valid).toBe(true);
  });

  it('derives an unguessable, stable approval id from the task token', () => {
    const id = signer.approvalIdFor('token-1');
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(signer.approvalIdFor('token-1')).toBe(id);
    expect(signer.approvalIdFor('token-2')).not.toBe(id);
    expect(new ApprovalLinkSigner(['other']).approvalIdFor('token-1')).not.toBe(id);
  });
});
