<?xml version="1.0" encoding="UTF-8"?>
<tileset version="1.10" tiledversion="1.10.2" name="factory" tilewidth="64" tileheight="64" tilecount="16" columns="16">
 <image source="factory.png" width="1024" height="64"/>
 <tile id="0" type="floor"/>
 <tile id="1" type="pit"/>
 <tile id="2" type="conveyor">
  <properties>
   <property name="dir" value="N"/>
  </properties>
 </tile>
 <tile id="3" type="conveyor">
  <properties>
   <property name="dir" value="N"/>
   <property name="express" type="bool" value="true"/>
  </properties>
 </tile>
 <tile id="4" type="conveyor">
  <properties>
   <property name="dir" value="N"/>
   <property name="turn" value="right"/>
  </properties>
 </tile>
 <tile id="5" type="gear">
  <properties>
   <property name="turn" value="left"/>
  </properties>
 </tile>
 <tile id="6" type="gear">
  <properties>
   <property name="turn" value="right"/>
  </properties>
 </tile>
 <tile id="7" type="wall">
  <properties>
   <property name="side" value="N"/>
  </properties>
 </tile>
 <tile id="8" type="laser">
  <properties>
   <property name="dir" value="N"/>
   <property name="strength" type="int" value="1"/>
  </properties>
 </tile>
 <tile id="9" type="flag">
  <properties>
   <property name="number" type="int" value="1"/>
  </properties>
 </tile>
 <tile id="10" type="flag">
  <properties>
   <property name="number" type="int" value="2"/>
  </properties>
 </tile>
 <tile id="11" type="repair">
  <properties>
   <property name="wrenches" type="int" value="1"/>
  </properties>
 </tile>
 <tile id="12" type="start">
  <properties>
   <property name="number" type="int" value="1"/>
  </properties>
 </tile>
 <tile id="13" type="start">
  <properties>
   <property name="number" type="int" value="2"/>
  </properties>
 </tile>
 <tile id="14" type="pusher">
  <properties>
   <property name="dir" value="N"/>
   <property name="phases" value="[1, 3, 5]"/>
  </properties>
 </tile>
 <tile id="15" type="crusher">
  <properties>
   <property name="phases" value="[2, 4]"/>
  </properties>
 </tile>
</tileset>
