import { describe, expect, it } from 'vitest';
import { ConsoleReporter } from '../reporters/console.ts';
import { HtmlReporter } from '../reporters/html.ts';
import { JsonReporter } from '../reporters/json.ts';
import { JunitReporter } from '../reporters/junit.ts';
import { MarkdownReporter } from '../reporters/markdown.ts';
import { createReporter, REPORTER_NAMES, ReporterSpecError } from '../reporters/registry.ts';
import { feed, memoryStream, sampleResults } from './helpers/results-fixture.ts';

describe('reporter registry', () => {
  it('knows console, json, junit and markdown', () => {
    expect(REPORTER_NAMES).toEqual(expect.arrayContaining(['console', 'json', 'junit', 'markdown']));
    expect(createReporter('markdown=out/summary.md')).toBeInstanceOf(MarkdownReporter);
    expect(createReporter('console')).toBeInstanceOf(ConsoleReporter);
    expect(createReporter('json=out/r.json')).toBeInstanceOf(JsonReporter);
    expect(createReporter('junit')).toBeInstanceOf(JunitReporter);
    expect(createReporter('html=out/report.html')).toBeInstanceOf(HtmlReporter);
  });

  it('writes json and junit without a path to the given stream (standard output by default)', async () => {
    const stream = memoryStream();
    await feed(createReporter('json', { stream }), sampleResults());
    expect(JSON.parse(stream.text()).runId).toBe('r-test01');
    const xml = memoryStream();
    await feed(createReporter('junit', { stream: xml }), sampleResults());
    expect(xml.text()).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites /);
  });

  it('rejects an unknown name in one line listing the known names', () => {
    expect(() => createReporter('tap=out.tap')).toThrow(ReporterSpecError);
    const message = (() => {
      try {
        createReporter('tap');
      } catch (err) {
        return (err as Error).message;
      }
      return 'no error';
    })();
    expect(message).not.toContain('\n');
    expect(message).toContain("unknown reporter 'tap'");
    expect(message).toContain('console, json, junit, markdown');
  });

  it('rejects an empty path and a path for console', () => {
    expect(() => createReporter('json=')).toThrow(/the path after '=' is empty/);
    expect(() => createReporter('console=log.txt')).toThrow(/console writes to the terminal/);
    expect(() => createReporter('toString')).toThrow(/unknown reporter 'toString'/);
  });
});
