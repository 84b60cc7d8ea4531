/** `autosave local --pass-through`: each named service to AWS, or to the endpoint written after `=`. */
import { describe, expect, it } from 'vitest';
import { parsePassThroughFlag } from '../../src/cli/commands/local';

describe('parsePassThroughFlag', () => {
  it('routes a bare name to AWS and name=url to that endpoint (a URL may hold = itself)', () => {
    expect(parsePassThroughFlag('glue, athena=http://127.0.0.1:4566,rekognition=http://h/?a=b')).toEqual({
      glue: {},
      athena: { endpoint: 'http://127.0.0.1:4566' },
      rekognition: { endpoint: 'http://h/?a=b' },
    });
  });
});
