BEGIN TRANSACTION;
CREATE TABLE `account` (
          `id` text PRIMARY KEY,
          `email` text NOT NULL,
          `url` text NOT NULL,
          `access_token` text NOT NULL,
          `refresh_token` text NOT NULL,
          `token_expiry` integer,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL
        );
CREATE TABLE `account_state` (
          `id` integer PRIMARY KEY,
          `active_account_id` text,
          `active_org_id` text,
          CONSTRAINT `fk_account_state_active_account_id_account_id_fk` FOREIGN KEY (`active_account_id`) REFERENCES `account`(`id`) ON DELETE SET NULL
        );
CREATE TABLE `control_account` (
          `email` text NOT NULL,
          `url` text NOT NULL,
          `access_token` text NOT NULL,
          `refresh_token` text NOT NULL,
          `token_expiry` integer,
          `active` integer NOT NULL,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL,
          CONSTRAINT `control_account_pk` PRIMARY KEY(`email`, `url`)
        );
CREATE TABLE `credential` (
          `id` text PRIMARY KEY,
          `integration_id` text,
          `label` text NOT NULL,
          `value` text NOT NULL,
          `connector_id` text,
          `method_id` text,
          `active` integer,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL
        );
CREATE TABLE `data_migration` (
          `name` text PRIMARY KEY,
          `time_completed` integer NOT NULL
        );
CREATE TABLE `event` (
          `id` text PRIMARY KEY,
          `aggregate_id` text NOT NULL,
          `seq` integer NOT NULL,
          `type` text NOT NULL,
          `data` text NOT NULL,
          CONSTRAINT `fk_event_aggregate_id_event_sequence_aggregate_id_fk` FOREIGN KEY (`aggregate_id`) REFERENCES `event_sequence`(`aggregate_id`) ON DELETE CASCADE
        );
INSERT INTO "event" VALUES('evt_236d64722001CVQ0SGyGj5ctYZ','ses_dc929b8dfffehEVqkqtvNcLqwQ',0,'session.created.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","info":{"id":"ses_dc929b8dfffehEVqkqtvNcLqwQ","slug":"mighty-tiger","projectID":"global","directory":"/tmp/ocrun/proj","path":"","cost":0,"tokens":{"input":0,"output":0,"reasoning":0,"cache":{"read":0,"write":0}},"title":"New session - 2026-12-02T12:59:02.305Z","version":"1.18.33","time":{"created":1796216342305,"updated":1796216342305},"permission":[{"permission":"question","pattern":"*","action":"deny"},{"permission":"plan_enter","pattern":"*","action":"deny"},{"permission":"plan_exit","pattern":"*","action":"deny"}]}}');
INSERT INTO "event" VALUES('evt_236d648c20011nSJgT4yixG8xZ','ses_dc929b8dfffehEVqkqtvNcLqwQ',1,'session.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","info":{"id":"ses_dc929b8dfffehEVqkqtvNcLqwQ","slug":"mighty-tiger","projectID":"global","directory":"/tmp/ocrun/proj","path":"","cost":0,"tokens":{"input":0,"output":0,"reasoning":0,"cache":{"read":0,"write":0}},"title":"New session - 2026-12-02T12:59:02.305Z","agent":"build","model":{"id":"fake-model","providerID":"fake","variant":"default"},"version":"1.18.33","time":{"created":1796216342305,"updated":1796216342718},"permission":[{"permission":"question","pattern":"*","action":"deny"},{"permission":"plan_enter","pattern":"*","action":"deny"},{"permission":"plan_exit","pattern":"*","action":"deny"}]}}');
INSERT INTO "event" VALUES('evt_236d648d1001YN2aLtlN8L46iX','ses_dc929b8dfffehEVqkqtvNcLqwQ',2,'message.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","info":{"id":"msg_236d648be001nm85DafDAsp2Za","sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","role":"user","time":{"created":1796216342718},"agent":"build","model":{"providerID":"fake","modelID":"fake-model"}}}');
INSERT INTO "event" VALUES('evt_236d65074001MOM74vM7EP9bZf','ses_dc929b8dfffehEVqkqtvNcLqwQ',3,'message.part.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","part":{"id":"prt_236d648cf001kxE89HWnyg0367","sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","messageID":"msg_236d648be001nm85DafDAsp2Za","type":"text","text":"\"hello there\""},"time":1796216344692}');
INSERT INTO "event" VALUES('evt_236d6507b001nidethAPeQT327','ses_dc929b8dfffehEVqkqtvNcLqwQ',4,'session.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","info":{"id":"ses_dc929b8dfffehEVqkqtvNcLqwQ","slug":"mighty-tiger","projectID":"global","directory":"/tmp/ocrun/proj","path":"","cost":0,"tokens":{"input":0,"output":0,"reasoning":0,"cache":{"read":0,"write":0}},"title":"New session - 2026-12-02T12:59:02.305Z","agent":"build","model":{"id":"fake-model","providerID":"fake","variant":"default"},"version":"1.18.33","time":{"created":1796216342305,"updated":1796216344698},"permission":[{"permission":"question","pattern":"*","action":"deny"},{"permission":"plan_enter","pattern":"*","action":"deny"},{"permission":"plan_exit","pattern":"*","action":"deny"}]}}');
INSERT INTO "event" VALUES('evt_236d6508d001MvOveJ6qFsdjV1','ses_dc929b8dfffehEVqkqtvNcLqwQ',5,'message.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","info":{"id":"msg_236d6508d001KVxpwKRf4Su2HM","sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","role":"assistant","time":{"created":1796216344717},"parentID":"msg_236d648be001nm85DafDAsp2Za","modelID":"fake-model","providerID":"fake","mode":"build","agent":"build","path":{"cwd":"/tmp/ocrun/proj","root":"/tmp/ocrun/proj"},"cost":0,"tokens":{"input":0,"output":0,"reasoning":0,"cache":{"read":0,"write":0}}}}');
INSERT INTO "event" VALUES('evt_236d65191001IiOdRnXGkUatIY','ses_dc929b8dfffehEVqkqtvNcLqwQ',6,'session.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","info":{"id":"ses_dc929b8dfffehEVqkqtvNcLqwQ","slug":"mighty-tiger","projectID":"global","directory":"/tmp/ocrun/proj","path":"","cost":0,"tokens":{"input":0,"output":0,"reasoning":0,"cache":{"read":0,"write":0}},"title":"Hello from the fake model (1).","agent":"build","model":{"id":"fake-model","providerID":"fake","variant":"default"},"version":"1.18.33","time":{"created":1796216342305,"updated":1796216344698},"permission":[{"permission":"question","pattern":"*","action":"deny"},{"permission":"plan_enter","pattern":"*","action":"deny"},{"permission":"plan_exit","pattern":"*","action":"deny"}]}}');
INSERT INTO "event" VALUES('evt_236d6529e001FtvVecGNv6UDel','ses_dc929b8dfffehEVqkqtvNcLqwQ',7,'session.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","info":{"id":"ses_dc929b8dfffehEVqkqtvNcLqwQ","slug":"mighty-tiger","projectID":"global","directory":"/tmp/ocrun/proj","path":"","summary":{"additions":0,"deletions":0,"files":0},"cost":0,"tokens":{"input":0,"output":0,"reasoning":0,"cache":{"read":0,"write":0}},"title":"Hello from the fake model (1).","agent":"build","model":{"id":"fake-model","providerID":"fake","variant":"default"},"version":"1.18.33","time":{"created":1796216342305,"updated":1796216345244},"permission":[{"permission":"question","pattern":"*","action":"deny"},{"permission":"plan_enter","pattern":"*","action":"deny"},{"permission":"plan_exit","pattern":"*","action":"deny"}]}}');
INSERT INTO "event" VALUES('evt_236d652aa001TYdBItOhbamKK1','ses_dc929b8dfffehEVqkqtvNcLqwQ',8,'message.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","info":{"id":"msg_236d648be001nm85DafDAsp2Za","sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","role":"user","time":{"created":1796216342718},"summary":{"diffs":[]},"agent":"build","model":{"providerID":"fake","modelID":"fake-model"}}}');
INSERT INTO "event" VALUES('evt_236d658b1001KkhnkBjx8jfwYz','ses_dc929b8dfffehEVqkqtvNcLqwQ',9,'message.part.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","part":{"id":"prt_236d658b0001TdMM9zHH0HFgsn","sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","messageID":"msg_236d6508d001KVxpwKRf4Su2HM","type":"step-start","snapshot":"4b825dc642cb6eb9a060e54bf8d69288fbee4904"},"time":1796216346801}');
INSERT INTO "event" VALUES('evt_236d658b70014N1ZoeRrPmtUnX','ses_dc929b8dfffehEVqkqtvNcLqwQ',10,'message.part.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","part":{"id":"prt_236d658b700103AaQPe2znKuZE","sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","messageID":"msg_236d6508d001KVxpwKRf4Su2HM","type":"text","text":"","time":{"start":1796216346807}},"time":1796216346807}');
INSERT INTO "event" VALUES('evt_236d658bd0017xmvt3WBNgYXr1','ses_dc929b8dfffehEVqkqtvNcLqwQ',11,'message.part.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","part":{"id":"prt_236d658b700103AaQPe2znKuZE","sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","messageID":"msg_236d6508d001KVxpwKRf4Su2HM","type":"text","text":"Hello from the fake model (2).","time":{"start":1796216346807,"end":1796216346812}},"time":1796216346813}');
INSERT INTO "event" VALUES('evt_236d6592e001X58jg7EcDjjE3T','ses_dc929b8dfffehEVqkqtvNcLqwQ',12,'message.part.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","part":{"id":"prt_236d6592d001Kn1O9P2L0neogC","sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","messageID":"msg_236d6508d001KVxpwKRf4Su2HM","type":"step-finish","reason":"stop","snapshot":"4b825dc642cb6eb9a060e54bf8d69288fbee4904","cost":0,"tokens":{"total":120,"input":100,"output":20,"reasoning":0,"cache":{"read":0,"write":0}}},"time":1796216346926}');
INSERT INTO "event" VALUES('evt_236d65933001Hh51HtP6ShFrTk','ses_dc929b8dfffehEVqkqtvNcLqwQ',13,'message.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","info":{"id":"msg_236d6508d001KVxpwKRf4Su2HM","sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","role":"assistant","time":{"created":1796216344717},"parentID":"msg_236d648be001nm85DafDAsp2Za","modelID":"fake-model","providerID":"fake","mode":"build","agent":"build","path":{"cwd":"/tmp/ocrun/proj","root":"/tmp/ocrun/proj"},"cost":0,"tokens":{"total":120,"input":100,"output":20,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}}');
INSERT INTO "event" VALUES('evt_236d659a7001SzBDwXn1GTLknt','ses_dc929b8dfffehEVqkqtvNcLqwQ',14,'message.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","info":{"id":"msg_236d6508d001KVxpwKRf4Su2HM","sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","role":"assistant","time":{"created":1796216344717,"completed":1796216347047},"parentID":"msg_236d648be001nm85DafDAsp2Za","modelID":"fake-model","providerID":"fake","mode":"build","agent":"build","path":{"cwd":"/tmp/ocrun/proj","root":"/tmp/ocrun/proj"},"cost":0,"tokens":{"total":120,"input":100,"output":20,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}}');
INSERT INTO "event" VALUES('evt_236d659b3001kmJsOkarj5xmXr','ses_dc929b8dfffehEVqkqtvNcLqwQ',15,'session.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","info":{"id":"ses_dc929b8dfffehEVqkqtvNcLqwQ","slug":"mighty-tiger","projectID":"global","directory":"/tmp/ocrun/proj","path":"","summary":{"additions":0,"deletions":0,"files":0},"cost":0,"tokens":{"input":100,"output":20,"reasoning":0,"cache":{"read":0,"write":0}},"title":"Hello from the fake model (1).","agent":"build","model":{"id":"fake-model","providerID":"fake","variant":"default"},"version":"1.18.33","time":{"created":1796216342305,"updated":1796216347058},"permission":[{"permission":"question","pattern":"*","action":"deny"},{"permission":"plan_enter","pattern":"*","action":"deny"},{"permission":"plan_exit","pattern":"*","action":"deny"}]}}');
INSERT INTO "event" VALUES('evt_236d668690010ImPmHSvFOpMgW','ses_dc929b8dfffehEVqkqtvNcLqwQ',16,'message.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","info":{"id":"msg_236d66860001ZL8eLcS2QLJK1U","sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","role":"user","time":{"created":1796216350816},"agent":"build","model":{"providerID":"fake","modelID":"fake-model"}}}');
INSERT INTO "event" VALUES('evt_236d66f4b001K4pEJIkOGeCIC6','ses_dc929b8dfffehEVqkqtvNcLqwQ',17,'message.part.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","part":{"id":"prt_236d668650013L8ig3RBmq5JnB","sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","messageID":"msg_236d66860001ZL8eLcS2QLJK1U","type":"text","text":"\"say hi again\""},"time":1796216352586}');
INSERT INTO "event" VALUES('evt_236d66f5a0013fzi53DqtBWjre','ses_dc929b8dfffehEVqkqtvNcLqwQ',18,'session.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","info":{"id":"ses_dc929b8dfffehEVqkqtvNcLqwQ","slug":"mighty-tiger","projectID":"global","directory":"/tmp/ocrun/proj","path":"","summary":{"additions":0,"deletions":0,"files":0},"cost":0,"tokens":{"input":100,"output":20,"reasoning":0,"cache":{"read":0,"write":0}},"title":"Hello from the fake model (1).","agent":"build","model":{"id":"fake-model","providerID":"fake","variant":"default"},"version":"1.18.33","time":{"created":1796216342305,"updated":1796216352595},"permission":[{"permission":"question","pattern":"*","action":"deny"},{"permission":"plan_enter","pattern":"*","action":"deny"},{"permission":"plan_exit","pattern":"*","action":"deny"}]}}');
INSERT INTO "event" VALUES('evt_236d66f7a001nELwB8xjW4I6xk','ses_dc929b8dfffehEVqkqtvNcLqwQ',19,'message.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","info":{"id":"msg_236d66f7900187bW9r4HJZ2VwR","sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","role":"assistant","time":{"created":1796216352634},"parentID":"msg_236d66860001ZL8eLcS2QLJK1U","modelID":"fake-model","providerID":"fake","mode":"build","agent":"build","path":{"cwd":"/tmp/ocrun/proj","root":"/tmp/ocrun/proj"},"cost":0,"tokens":{"input":0,"output":0,"reasoning":0,"cache":{"read":0,"write":0}}}}');
INSERT INTO "event" VALUES('evt_236d67053001vpGZFB7EV60e8w','ses_dc929b8dfffehEVqkqtvNcLqwQ',20,'session.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","info":{"id":"ses_dc929b8dfffehEVqkqtvNcLqwQ","slug":"mighty-tiger","projectID":"global","directory":"/tmp/ocrun/proj","path":"","summary":{"additions":0,"deletions":0,"files":0},"cost":0,"tokens":{"input":100,"output":20,"reasoning":0,"cache":{"read":0,"write":0}},"title":"Hello from the fake model (1).","agent":"build","model":{"id":"fake-model","providerID":"fake","variant":"default"},"version":"1.18.33","time":{"created":1796216342305,"updated":1796216352849},"permission":[{"permission":"question","pattern":"*","action":"deny"},{"permission":"plan_enter","pattern":"*","action":"deny"},{"permission":"plan_exit","pattern":"*","action":"deny"}]}}');
INSERT INTO "event" VALUES('evt_236d6705e001oh3wA4UQza3win','ses_dc929b8dfffehEVqkqtvNcLqwQ',21,'message.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","info":{"id":"msg_236d66860001ZL8eLcS2QLJK1U","sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","role":"user","time":{"created":1796216350816},"summary":{"diffs":[]},"agent":"build","model":{"providerID":"fake","modelID":"fake-model"}}}');
INSERT INTO "event" VALUES('evt_236d6777e0010anSNHjXX0ySK4','ses_dc929b8dfffehEVqkqtvNcLqwQ',22,'message.part.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","part":{"id":"prt_236d6777e001Vm3lizF1lULhJQ","sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","messageID":"msg_236d66f7900187bW9r4HJZ2VwR","type":"step-start","snapshot":"4b825dc642cb6eb9a060e54bf8d69288fbee4904"},"time":1796216354686}');
INSERT INTO "event" VALUES('evt_236d67785001DtMS5uUoXpRPGl','ses_dc929b8dfffehEVqkqtvNcLqwQ',23,'message.part.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","part":{"id":"prt_236d677840012UuOk4zud2MZHT","sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","messageID":"msg_236d66f7900187bW9r4HJZ2VwR","type":"text","text":"","time":{"start":1796216354692}},"time":1796216354693}');
INSERT INTO "event" VALUES('evt_236d6778c001GdJYIlMh56QChh','ses_dc929b8dfffehEVqkqtvNcLqwQ',24,'message.part.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","part":{"id":"prt_236d677840012UuOk4zud2MZHT","sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","messageID":"msg_236d66f7900187bW9r4HJZ2VwR","type":"text","text":"Hello from the fake model (3).","time":{"start":1796216354692,"end":1796216354700}},"time":1796216354700}');
INSERT INTO "event" VALUES('evt_236d677e0001gxhhNj3lhEcXlK','ses_dc929b8dfffehEVqkqtvNcLqwQ',25,'message.part.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","part":{"id":"prt_236d677e0001Mw6ZrEp7A4xgaq","sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","messageID":"msg_236d66f7900187bW9r4HJZ2VwR","type":"step-finish","reason":"stop","snapshot":"4b825dc642cb6eb9a060e54bf8d69288fbee4904","cost":0,"tokens":{"total":120,"input":100,"output":20,"reasoning":0,"cache":{"read":0,"write":0}}},"time":1796216354784}');
INSERT INTO "event" VALUES('evt_236d677e6001nz4tnlieKY43ll','ses_dc929b8dfffehEVqkqtvNcLqwQ',26,'message.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","info":{"id":"msg_236d66f7900187bW9r4HJZ2VwR","sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","role":"assistant","time":{"created":1796216352634},"parentID":"msg_236d66860001ZL8eLcS2QLJK1U","modelID":"fake-model","providerID":"fake","mode":"build","agent":"build","path":{"cwd":"/tmp/ocrun/proj","root":"/tmp/ocrun/proj"},"cost":0,"tokens":{"total":120,"input":100,"output":20,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}}');
INSERT INTO "event" VALUES('evt_236d6784f001uzFQrIuHeMxjG3','ses_dc929b8dfffehEVqkqtvNcLqwQ',27,'message.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","info":{"id":"msg_236d66f7900187bW9r4HJZ2VwR","sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","role":"assistant","time":{"created":1796216352634,"completed":1796216354894},"parentID":"msg_236d66860001ZL8eLcS2QLJK1U","modelID":"fake-model","providerID":"fake","mode":"build","agent":"build","path":{"cwd":"/tmp/ocrun/proj","root":"/tmp/ocrun/proj"},"cost":0,"tokens":{"total":120,"input":100,"output":20,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}}');
INSERT INTO "event" VALUES('evt_236d67865001Y0ko5vaB5xUE8h','ses_dc929b8dfffehEVqkqtvNcLqwQ',28,'session.updated.1','{"sessionID":"ses_dc929b8dfffehEVqkqtvNcLqwQ","info":{"id":"ses_dc929b8dfffehEVqkqtvNcLqwQ","slug":"mighty-tiger","projectID":"global","directory":"/tmp/ocrun/proj","path":"","summary":{"additions":0,"deletions":0,"files":0},"cost":0,"tokens":{"input":200,"output":40,"reasoning":0,"cache":{"read":0,"write":0}},"title":"Hello from the fake model (1).","agent":"build","model":{"id":"fake-model","providerID":"fake","variant":"default"},"version":"1.18.33","time":{"created":1796216342305,"updated":1796216354915},"permission":[{"permission":"question","pattern":"*","action":"deny"},{"permission":"plan_enter","pattern":"*","action":"deny"},{"permission":"plan_exit","pattern":"*","action":"deny"}]}}');
CREATE TABLE `event_sequence` (
          `aggregate_id` text PRIMARY KEY,
          `seq` integer NOT NULL,
          `owner_id` text
        );
INSERT INTO "event_sequence" VALUES('ses_dc929b8dfffehEVqkqtvNcLqwQ',28,NULL);
CREATE TABLE `message` (
          `id` text PRIMARY KEY,
          `session_id` text NOT NULL,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL,
          `data` text NOT NULL,
          CONSTRAINT `fk_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
        );
INSERT INTO "message" VALUES('msg_236d648be001nm85DafDAsp2Za','ses_dc929b8dfffehEVqkqtvNcLqwQ',1796216342718,1796216345260,'{"role":"user","time":{"created":1796216342718},"agent":"build","model":{"providerID":"fake","modelID":"fake-model"},"summary":{"diffs":[]}}');
INSERT INTO "message" VALUES('msg_236d6508d001KVxpwKRf4Su2HM','ses_dc929b8dfffehEVqkqtvNcLqwQ',1796216344717,1796216347048,'{"parentID":"msg_236d648be001nm85DafDAsp2Za","role":"assistant","mode":"build","agent":"build","path":{"cwd":"/tmp/ocrun/proj","root":"/tmp/ocrun/proj"},"cost":0,"tokens":{"total":120,"input":100,"output":20,"reasoning":0,"cache":{"write":0,"read":0}},"modelID":"fake-model","providerID":"fake","time":{"created":1796216344717,"completed":1796216347047},"finish":"stop"}');
INSERT INTO "message" VALUES('msg_236d66860001ZL8eLcS2QLJK1U','ses_dc929b8dfffehEVqkqtvNcLqwQ',1796216350816,1796216352864,'{"role":"user","time":{"created":1796216350816},"agent":"build","model":{"providerID":"fake","modelID":"fake-model"},"summary":{"diffs":[]}}');
INSERT INTO "message" VALUES('msg_236d66f7900187bW9r4HJZ2VwR','ses_dc929b8dfffehEVqkqtvNcLqwQ',1796216352634,1796216354897,'{"parentID":"msg_236d66860001ZL8eLcS2QLJK1U","role":"assistant","mode":"build","agent":"build","path":{"cwd":"/tmp/ocrun/proj","root":"/tmp/ocrun/proj"},"cost":0,"tokens":{"total":120,"input":100,"output":20,"reasoning":0,"cache":{"write":0,"read":0}},"modelID":"fake-model","providerID":"fake","time":{"created":1796216352634,"completed":1796216354894},"finish":"stop"}');
CREATE TABLE "migration" (id TEXT PRIMARY KEY, time_completed INTEGER NOT NULL);
INSERT INTO "migration" VALUES('20260127222353_familiar_lady_ursula',1796216340976);
INSERT INTO "migration" VALUES('20260211171708_add_project_commands',1796216340976);
INSERT INTO "migration" VALUES('20260213144116_wakeful_the_professor',1796216340976);
INSERT INTO "migration" VALUES('20260225215848_workspace',1796216340976);
INSERT INTO "migration" VALUES('20260227213759_add_session_workspace_id',1796216340976);
INSERT INTO "migration" VALUES('20260228203230_blue_harpoon',1796216340976);
INSERT INTO "migration" VALUES('20260303231226_add_workspace_fields',1796216340977);
INSERT INTO "migration" VALUES('20260309230000_move_org_to_state',1796216340977);
INSERT INTO "migration" VALUES('20260312043431_session_message_cursor',1796216340977);
INSERT INTO "migration" VALUES('20260323234822_events',1796216340977);
INSERT INTO "migration" VALUES('20260410174513_workspace-name',1796216340977);
INSERT INTO "migration" VALUES('20260413175956_chief_energizer',1796216340977);
INSERT INTO "migration" VALUES('20260423070820_add_icon_url_override',1796216340977);
INSERT INTO "migration" VALUES('20260427172553_slow_nightmare',1796216340977);
INSERT INTO "migration" VALUES('20260428004200_add_session_path',1796216340977);
INSERT INTO "migration" VALUES('20260501142318_next_venus',1796216340977);
INSERT INTO "migration" VALUES('20260504145000_add_sync_owner',1796216340977);
INSERT INTO "migration" VALUES('20260507164347_add_workspace_time',1796216340977);
INSERT INTO "migration" VALUES('20260510033149_session_usage',1796216340977);
INSERT INTO "migration" VALUES('20260511000411_data_migration_state',1796216340978);
INSERT INTO "migration" VALUES('20260511173437_session-metadata',1796216340978);
INSERT INTO "migration" VALUES('20260601010001_normalize_storage_paths',1796216340979);
INSERT INTO "migration" VALUES('20260601202201_amazing_prowler',1796216340979);
INSERT INTO "migration" VALUES('20260602002951_lowly_union_jack',1796216340979);
INSERT INTO "migration" VALUES('20260602182828_add_project_directories',1796216340979);
INSERT INTO "migration" VALUES('20260603001617_session_message_projection_indexes',1796216340979);
INSERT INTO "migration" VALUES('20260603040000_session_message_projection_order',1796216340979);
INSERT INTO "migration" VALUES('20260603141458_session_input_inbox',1796216340979);
INSERT INTO "migration" VALUES('20260603160727_jittery_ezekiel_stane',1796216340979);
INSERT INTO "migration" VALUES('20260604172448_event_sourced_session_input',1796216340980);
INSERT INTO "migration" VALUES('20260605003541_add_session_context_snapshot',1796216340980);
INSERT INTO "migration" VALUES('20260605042240_add_context_epoch_agent',1796216340980);
INSERT INTO "migration" VALUES('20260611035744_credential',1796216340980);
INSERT INTO "migration" VALUES('20260611192811_lush_chimera',1796216340980);
INSERT INTO "migration" VALUES('20260612174303_project_dir_strategy',1796216340980);
INSERT INTO "migration" VALUES('20260622142730_simplify_session_context_epoch',1796216340980);
INSERT INTO "migration" VALUES('20260622170816_reset_v2_session_state',1796216340981);
INSERT INTO "migration" VALUES('20260622202450_simplify_session_input',1796216340981);
CREATE TABLE `part` (
          `id` text PRIMARY KEY,
          `message_id` text NOT NULL,
          `session_id` text NOT NULL,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL,
          `data` text NOT NULL,
          CONSTRAINT `fk_part_message_id_message_id_fk` FOREIGN KEY (`message_id`) REFERENCES `message`(`id`) ON DELETE CASCADE
        );
INSERT INTO "part" VALUES('prt_236d648cf001kxE89HWnyg0367','msg_236d648be001nm85DafDAsp2Za','ses_dc929b8dfffehEVqkqtvNcLqwQ',1796216344692,1796216344696,'{"type":"text","text":"\"hello there\""}');
INSERT INTO "part" VALUES('prt_236d658b0001TdMM9zHH0HFgsn','msg_236d6508d001KVxpwKRf4Su2HM','ses_dc929b8dfffehEVqkqtvNcLqwQ',1796216346801,1796216346803,'{"snapshot":"4b825dc642cb6eb9a060e54bf8d69288fbee4904","type":"step-start"}');
INSERT INTO "part" VALUES('prt_236d658b700103AaQPe2znKuZE','msg_236d6508d001KVxpwKRf4Su2HM','ses_dc929b8dfffehEVqkqtvNcLqwQ',1796216346807,1796216346816,'{"type":"text","text":"Hello from the fake model (2).","time":{"start":1796216346807,"end":1796216346812}}');
INSERT INTO "part" VALUES('prt_236d6592d001Kn1O9P2L0neogC','msg_236d6508d001KVxpwKRf4Su2HM','ses_dc929b8dfffehEVqkqtvNcLqwQ',1796216346926,1796216346928,'{"reason":"stop","snapshot":"4b825dc642cb6eb9a060e54bf8d69288fbee4904","type":"step-finish","tokens":{"total":120,"input":100,"output":20,"reasoning":0,"cache":{"write":0,"read":0}},"cost":0}');
INSERT INTO "part" VALUES('prt_236d668650013L8ig3RBmq5JnB','msg_236d66860001ZL8eLcS2QLJK1U','ses_dc929b8dfffehEVqkqtvNcLqwQ',1796216352586,1796216352591,'{"type":"text","text":"\"say hi again\""}');
INSERT INTO "part" VALUES('prt_236d6777e001Vm3lizF1lULhJQ','msg_236d66f7900187bW9r4HJZ2VwR','ses_dc929b8dfffehEVqkqtvNcLqwQ',1796216354686,1796216354689,'{"snapshot":"4b825dc642cb6eb9a060e54bf8d69288fbee4904","type":"step-start"}');
INSERT INTO "part" VALUES('prt_236d677840012UuOk4zud2MZHT','msg_236d66f7900187bW9r4HJZ2VwR','ses_dc929b8dfffehEVqkqtvNcLqwQ',1796216354693,1796216354702,'{"type":"text","text":"Hello from the fake model (3).","time":{"start":1796216354692,"end":1796216354700}}');
INSERT INTO "part" VALUES('prt_236d677e0001Mw6ZrEp7A4xgaq','msg_236d66f7900187bW9r4HJZ2VwR','ses_dc929b8dfffehEVqkqtvNcLqwQ',1796216354784,1796216354787,'{"reason":"stop","snapshot":"4b825dc642cb6eb9a060e54bf8d69288fbee4904","type":"step-finish","tokens":{"total":120,"input":100,"output":20,"reasoning":0,"cache":{"write":0,"read":0}},"cost":0}');
CREATE TABLE `permission` (
          `id` text PRIMARY KEY,
          `project_id` text NOT NULL,
          `action` text NOT NULL,
          `resource` text NOT NULL,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL,
          CONSTRAINT `fk_permission_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE
        );
CREATE TABLE `project` (
          `id` text PRIMARY KEY,
          `worktree` text NOT NULL,
          `vcs` text,
          `name` text,
          `icon_url` text,
          `icon_url_override` text,
          `icon_color` text,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL,
          `time_initialized` integer,
          `sandboxes` text NOT NULL,
          `commands` text
        );
INSERT INTO "project" VALUES('global','/tmp/ocrun/proj','git',NULL,NULL,NULL,NULL,1796216341668,1796216349656,NULL,'[]',NULL);
CREATE TABLE `project_directory` (
          `project_id` text NOT NULL,
          `directory` text NOT NULL,
          `type` text,
          `strategy` text,
          `time_created` integer NOT NULL,
          CONSTRAINT `project_directory_pk` PRIMARY KEY(`project_id`, `directory`),
          CONSTRAINT `fk_project_directory_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE
        );
CREATE TABLE `session` (
          `id` text PRIMARY KEY,
          `project_id` text NOT NULL,
          `workspace_id` text,
          `parent_id` text,
          `slug` text NOT NULL,
          `directory` text NOT NULL,
          `path` text,
          `title` text NOT NULL,
          `version` text NOT NULL,
          `share_url` text,
          `summary_additions` integer,
          `summary_deletions` integer,
          `summary_files` integer,
          `summary_diffs` text,
          `metadata` text,
          `cost` real DEFAULT 0 NOT NULL,
          `tokens_input` integer DEFAULT 0 NOT NULL,
          `tokens_output` integer DEFAULT 0 NOT NULL,
          `tokens_reasoning` integer DEFAULT 0 NOT NULL,
          `tokens_cache_read` integer DEFAULT 0 NOT NULL,
          `tokens_cache_write` integer DEFAULT 0 NOT NULL,
          `revert` text,
          `permission` text,
          `agent` text,
          `model` text,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL,
          `time_compacting` integer,
          `time_archived` integer,
          CONSTRAINT `fk_session_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE
        );
INSERT INTO "session" VALUES('ses_dc929b8dfffehEVqkqtvNcLqwQ','global',NULL,NULL,'mighty-tiger','/tmp/ocrun/proj','','Hello from the fake model (1).','1.18.33',NULL,0,0,0,NULL,NULL,0.0,200,40,0,0,0,NULL,'[{"permission":"question","pattern":"*","action":"deny"},{"permission":"plan_enter","pattern":"*","action":"deny"},{"permission":"plan_exit","pattern":"*","action":"deny"}]','build','{"id":"fake-model","providerID":"fake","variant":"default"}',1796216342305,1796216354915,NULL,NULL);
CREATE TABLE `session_context_epoch` (
          `session_id` text PRIMARY KEY,
          `baseline` text NOT NULL,
          `snapshot` text NOT NULL,
          `baseline_seq` integer NOT NULL,
          CONSTRAINT `fk_session_context_epoch_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
        );
CREATE TABLE `session_input` (
          `id` text PRIMARY KEY,
          `session_id` text NOT NULL,
          `prompt` text NOT NULL,
          `delivery` text NOT NULL,
          `admitted_seq` integer NOT NULL,
          `promoted_seq` integer,
          `time_created` integer NOT NULL,
          CONSTRAINT `fk_session_input_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
        );
CREATE TABLE `session_message` (
          `id` text PRIMARY KEY,
          `session_id` text NOT NULL,
          `type` text NOT NULL,
          `seq` integer NOT NULL,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL,
          `data` text NOT NULL,
          CONSTRAINT `fk_session_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
        );
CREATE TABLE `session_share` (
          `session_id` text PRIMARY KEY,
          `id` text NOT NULL,
          `secret` text NOT NULL,
          `url` text NOT NULL,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL,
          CONSTRAINT `fk_session_share_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
        );
CREATE TABLE `todo` (
          `session_id` text NOT NULL,
          `content` text NOT NULL,
          `status` text NOT NULL,
          `priority` text NOT NULL,
          `position` integer NOT NULL,
          `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL,
          CONSTRAINT `todo_pk` PRIMARY KEY(`session_id`, `position`),
          CONSTRAINT `fk_todo_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
        );
CREATE TABLE `workspace` (
          `id` text PRIMARY KEY,
          `type` text NOT NULL,
          `name` text DEFAULT '' NOT NULL,
          `branch` text,
          `directory` text,
          `extra` text,
          `project_id` text NOT NULL,
          `time_used` integer NOT NULL,
          CONSTRAINT `fk_workspace_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE
        );
CREATE UNIQUE INDEX `event_aggregate_seq_idx` ON `event` (`aggregate_id`,`seq`);
CREATE INDEX `event_aggregate_type_seq_idx` ON `event` (`aggregate_id`,`type`,`seq`);
CREATE UNIQUE INDEX `permission_project_action_resource_idx` ON `permission` (`project_id`,`action`,`resource`);
CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);
CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`,`id`);
CREATE INDEX `part_session_idx` ON `part` (`session_id`);
CREATE INDEX `session_input_session_pending_delivery_seq_idx` ON `session_input` (`session_id`,`promoted_seq`,`delivery`,`admitted_seq`);
CREATE UNIQUE INDEX `session_input_session_admitted_seq_idx` ON `session_input` (`session_id`,`admitted_seq`);
CREATE UNIQUE INDEX `session_input_session_promoted_seq_idx` ON `session_input` (`session_id`,`promoted_seq`);
CREATE UNIQUE INDEX `session_message_session_seq_idx` ON `session_message` (`session_id`,`seq`);
CREATE INDEX `session_message_session_type_seq_idx` ON `session_message` (`session_id`,`type`,`seq`);
CREATE INDEX `session_message_session_time_created_id_idx` ON `session_message` (`session_id`,`time_created`,`id`);
CREATE INDEX `session_message_time_created_idx` ON `session_message` (`time_created`);
CREATE INDEX `session_project_idx` ON `session` (`project_id`);
CREATE INDEX `session_workspace_idx` ON `session` (`workspace_id`);
CREATE INDEX `session_parent_idx` ON `session` (`parent_id`);
CREATE INDEX `todo_session_idx` ON `todo` (`session_id`);
COMMIT;
