import { describe, expect, it, vi } from 'vitest';
import { Unreadable } from '../runner/passive/view.ts';
import { parseJson } from '../runner/transports/response.ts';
import { CheckFailure, TargetDown, TargetError } from '../runner/util/errors.ts';

/*
 * Errors that report on an answer are made for many exchanges the proxy judges (a body that is not
 * JSON, a precondition unmet): they capture no stack, which would cost more than the judging, and
 * leave the stack limit as it was for every other error.
 */
describe('errors about answers', () => {
  it('carry their message and no stack frames, and leave Error.stackTraceLimit as it was', () => {
    const limit = Error.stackTraceLimit;
    for (const err of [
      new TargetError('body is not JSON'),
      new TargetDown('down'),
      new CheckFailure('expected 200', 200, 404),
      new Unreadable('the answer is not JSON'),
    ]) {
      expect(err).toBeInstanceOf(Error);
      expect(err.message.length).toBeGreaterThan(0);
      expect(err.stack ?? '').not.toMatch(/\n\s+at /);
    }
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error('a bug').stack).toMatch(/\n\s+at /);
  });
});

describe('JSON text, told apart before parsing', () => {
  it('takes every JSON value form and refuses XML, HTML and an empty body', () => {
    for (const t of ['{}', ' [1]', '\n"s"', '12', '-1', 'true', 'false', 'null']) {
      expect(parseJson(t)).toBeDefined();
    }
    // Refused before JSON.parse, whose SyntaxError would carry a stack.
    const parse = vi.spyOn(JSON, 'parse');
    for (const t of ['', '   ', '<?xml version="1.0"?><Error/>', '<html>', 'Service Unavailable']) {
      expect(parseJson(t)).toBeUndefined();
    }
    expect(parse).not.toHaveBeenCalled();
    parse.mockRestore();
    expect(parseJson('{"a":')).toBeUndefined();
  });
});
