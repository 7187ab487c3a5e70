import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('MCP_ALLOWED_ORIGINS', () => {
  it('is empty by default: only clients that send no Origin header are served', () => {
    expect(loadConfig({}).mcp).toEqual({ allowedOrigins: [] });
  });

  it('takes comma-separated origins and normalises them (case, default port, trailing slash)', () => {
    const config = loadConfig({
      MCP_ALLOWED_ORIGINS: ' https://Notes.Example.com/ , http://localhost:6274,,https://app.example.com:443',
    });
    expect(config.mcp.allowedOrigins).toEqual([
      'https://notes.example.com',
      'http://localhost:6274',
      'https://app.example.com',
    ]);
  });

  it.each([
    'notes.example.com',
    'https://notes.example.com/mcp',
    'ftp://files.example.com',
    'https://u:p@x.example',
  ])('refuses %s, naming the variable and the entry', (value) => {
    expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: value })).toThrow(ConfigError);
    expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: value })).toThrow(
      /MCP_ALLOWED_ORIGINS=.*is not an origin/,
    );
  });
});
