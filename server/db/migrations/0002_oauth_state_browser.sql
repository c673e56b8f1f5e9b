ALTER TABLE "oauth_states" ADD COLUMN "browser_hash" text;--> statement-breakpoint
ALTER TABLE "oauth_states" ADD COLUMN "session_id" integer;