#if Tools
await TelemetryKitCommand.main()
#else
print("telemetrykit needs the Tools trait: swift run --traits Tools telemetrykit demo")
#endif
