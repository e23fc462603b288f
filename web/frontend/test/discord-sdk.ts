// TESTS ONLY: never in web/static. `node build.mjs --mock OUTDIR` builds the page with
// this module in place of "@discord/embedded-app-sdk" (src/discord.ts's import), so the
// Activity's sign-in runs in a browser without Discord's client around it.
//
// It is the SDK's own DiscordSDKMock, with what Discord's client would give the page:
// the instance id from the `instance_id` query parameter (as the real SDK reads it), and
// for authorize() the code the test had the fake Discord issue (`mock_code`). Each call
// the page makes is kept in `window.discordMockCalls` for the test to read.

import { DiscordSDKMock } from "@discord/embedded-app-sdk";

declare global {
  interface Window {
    discordMockCalls: { command: string; args: unknown }[];
  }
}

export class DiscordSDK extends DiscordSDKMock {
  constructor(clientId: string) {
    const query = new URLSearchParams(location.search);
    super(clientId, query.get("guild_id"), query.get("channel_id"), query.get("location_id"));
    // The mock's instanceId is a constant; Discord's is the launch's.
    Object.defineProperty(this, "instanceId", { value: query.get("instance_id") ?? "" });
    const calls: Window["discordMockCalls"] = (window.discordMockCalls = []);
    this._updateCommandMocks({
      async authorize(args) {
        calls.push({ command: "authorize", args });
        const code = query.get("mock_code");
        if (!code) throw { code: 5000, message: "The user closed the authorization dialog" };
        return { code };
      },
      async authenticate(args) {
        calls.push({ command: "authenticate", args });
        if (!args.access_token) throw { code: 4006, message: "Invalid access token" };
        return {
          access_token: args.access_token,
          user: { username: "mock", discriminator: "0", id: "0", public_flags: 0 },
          scopes: ["identify"],
          expires: new Date(Date.now() + 3_600_000).toISOString(),
          application: { id: clientId, description: "", name: "cardtable" },
        };
      },
    });
  }
}
