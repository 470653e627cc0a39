# the shared uapi header, installed for programs that read the rings themselves
uapidir = $(includedir)/linux
uapi_HEADERS = include/uapi/linux/mgcap.h
