// A shared object that is not a cosi plugin: it exports no cosi_plugin_entry.
extern "C" int not_a_plugin() { return 42; }
