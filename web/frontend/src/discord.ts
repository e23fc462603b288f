// Discord's Embedded App SDK, in a chunk of its own: main.ts imports this module only
// when the page runs as a Discord Activity, so the table's own bundle never loads it.

import { DiscordSDK } from "@discord/embedded-app-sdk";

/** What the Activity's sign-in needs of Discord's client (src/activity.ts). */
export interface DiscordClient {
  /** The SDK's instance id (from Discord's `instance_id` query parameter). */
  readonly instanceId: string;
  /** The user agrees (once; later silently) to the scope `identify`: a one-use code. */
  authorize(): Promise<string>;
  /** Hands Discord's client the access token the server got for that code. */
  authenticate(accessToken: string): Promise<void>;
}

/** The SDK, handshaken with Discord's client (`ready()`). */
export async function connect(clientId: string): Promise<DiscordClient> {
  const sdk = new DiscordSDK(clientId);
  await sdk.ready();
  return {
    instanceId: sdk.instanceId,
    async authorize() {
      const { code } = await sdk.commands.authorize({
        client_id: clientId,
        response_type: "code",
        state: "",
        prompt: "none",
        scope: ["identify"],
      });
      return code;
    },
    async authenticate(accessToken) {
      await sdk.commands.authenticate({ access_token: accessToken });
    },
  };
}
