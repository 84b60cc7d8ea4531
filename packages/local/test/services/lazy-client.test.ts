import { describe, expect, it, vi } from 'vitest';
import { lazyClient } from '../../src/services/lazy-client';

/** A stand-in SDK client that records what it was asked. */
function fakeClient() {
  return {
    sent: [] as unknown[],
    destroyed: false,
    send(command: never) {
      this.sent.push(command);
      return Promise.resolve({ answered: command });
    },
    destroy() {
      this.destroyed = true;
    },
  };
}

describe('lazyClient', () => {
  it('creates the client (loading its package) only at the first send, and only once', async () => {
    const client = fakeClient();
    const create = vi.fn(async () => client);
    const lazy = lazyClient(create);
    expect(create).not.toHaveBeenCalled();
    const answers = await Promise.all([lazy.send('a' as never), lazy.send('b' as never)]);
    expect(answers).toEqual([{ answered: 'a' }, { answered: 'b' }]);
    expect(create).toHaveBeenCalledTimes(1);
    expect(client.sent).toEqual(['a', 'b']);
  });

  it('destroys the client it created, and creates none to destroy it', async () => {
    const create = vi.fn(async () => fakeClient());
    lazyClient(create).destroy();
    expect(create).not.toHaveBeenCalled();
    const client = fakeClient();
    const lazy = lazyClient(async () => client);
    await lazy.send('a' as never);
    lazy.destroy();
    await Promise.resolve();
    expect(client.destroyed).toBe(true);
  });

  it('rejects a send when the client cannot be created, with the cause', async () => {
    const lazy = lazyClient<ReturnType<typeof fakeClient>>(async () => {
      throw new Error('package missing');
    });
    await expect(lazy.send('a' as never)).rejects.toThrow('package missing');
  });
});
